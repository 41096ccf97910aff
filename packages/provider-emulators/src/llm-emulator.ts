import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody, sleep } from './http';
import { attachRealtimeTranscription, type TranscriptionSessionRecord } from './realtime-transcription';
import { resample, speakPcm, writeWav } from '@voice/audio';

/**
 * An OpenAI-compatible chat-completions server, as OpenAI documents the API: `POST /v1/chat/completions`
 * with a bearer key, answered as one JSON completion or, with `stream: true`, as server-sent
 * `chat.completion.chunk` events ending in `data: [DONE]`, tool calls streamed as their name and then
 * their arguments in pieces. What it answers comes from the test's script; what it was asked is recorded.
 * It also speaks: `POST /v1/audio/speech` answers with the input read by eSpeak NG as raw 24 kHz 16-bit
 * PCM (`response_format: pcm`) or a WAV file, after a fixed latency; and embeds: `POST /v1/embeddings`
 * answers each input with a deterministic vector of its words (`embed`).
 * For tests and the offline demo only.
 */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | 'developer';
  content?: string | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/**
 * The emulator's token counts: a token per four characters (OpenAI's rule of thumb for English) of the
 * messages read and of the answer written, so a longer conversation costs more, as it would.
 */
function tokenUsage(messages: ChatMessage[], answer: string) {
  const read = messages.reduce(
    (sum, { content, tool_calls }) =>
      sum + (content ?? '').length + (tool_calls ? JSON.stringify(tool_calls).length : 0),
    0,
  );
  const prompt_tokens = Math.ceil(read / 4);
  const completion_tokens = Math.ceil(answer.length / 4);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  tools?: { type: 'function'; function: { name: string; description?: string; parameters?: unknown } }[];
  response_format?: { type: string; json_schema?: { name: string; schema: unknown; strict?: boolean } };
  [key: string]: unknown;
}

/** One scripted answer. */
export type LlmReply =
  | {
      /** What the assistant says (streamed a few words per chunk). */
      say?: string;
      toolCalls?: { name: string; arguments: Record<string, unknown> }[];
      /** Time before the first chunk (the model's time to first token). */
      latencyMs?: number;
      /** Time between chunks. */
      chunkDelayMs?: number;
    }
  /** The provider failing: this HTTP status and an OpenAI-shaped error body. */
  | { status: number; message?: string }
  /** The provider accepting the request and never answering. */
  | { hang: true };

export interface LlmEmulatorOptions {
  /** The key callers must present; any key when omitted. */
  apiKey?: string;
  /** The answer to each request (its index counts from 0 across the emulator's life). */
  reply: (request: ChatRequest, index: number) => LlmReply;
  /** Time before speech is answered (the provider's synthesis latency). */
  speechLatencyMs?: number;
  /** Realtime transcription sessions: the words of each utterance a session hears (from 0 per session). */
  transcript?: (utterance: number) => string;
  port?: number;
}

export interface SpeechRequest {
  model: string;
  input: string;
  voice: string;
  response_format?: string;
}

export interface LlmEmulator {
  /** The base URL an OpenAI client takes (`…/v1`). */
  baseUrl: string;
  /** Every request, in arrival order. */
  requests: ChatRequest[];
  speechRequests: SpeechRequest[];
  /** Realtime transcription sessions (with `transcript` given). */
  transcriptionSessions: TranscriptionSessionRecord[];
  /** Faults of the speech endpoint from now on: an HTTP status to fail with. */
  faults: { speechStatus?: number };
  stop(): Promise<void>;
}

const WORDS_PER_CHUNK = 3;
/** The emulator's embeddings' dimensions. */
export const EMULATED_EMBEDDING_DIMENSIONS = 256;

/**
 * A text's emulated embedding: its words (lowercased, 4-letter prefixes, so "parking" meets "park")
 * hashed into a unit vector, so texts that share words are near and texts that share none are apart.
 */
export function embed(text: string): Float32Array {
  const vector = new Float32Array(EMULATED_EMBEDDING_DIMENSIONS);
  for (const word of text.toLowerCase().match(/\p{L}[\p{L}\p{N}]*/gu) ?? []) {
    const stem = word.slice(0, 4);
    let hash = 2166136261;
    for (let index = 0; index < stem.length; index += 1)
      hash = Math.imul(hash ^ stem.charCodeAt(index), 16777619);
    vector[(hash >>> 0) % EMULATED_EMBEDDING_DIMENSIONS]! += 1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}

function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  type = 'invalid_request_error',
) {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ error: { message, type, param: null, code: null } }));
}

/** The assistant's text in stream-sized pieces: a few words each, spaces kept. */
function pieces(text: string): string[] {
  const words = text.match(/\S+\s*/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < words.length; i += WORDS_PER_CHUNK)
    out.push(words.slice(i, i + WORDS_PER_CHUNK).join(''));
  return out;
}

export async function startLlmEmulator(options: LlmEmulatorOptions): Promise<LlmEmulator> {
  const requests: ChatRequest[] = [];
  const speechRequests: SpeechRequest[] = [];
  const faults: LlmEmulator['faults'] = {};
  /** Speech already synthesized, by text: a benchmark asks for the same sentences again and again. */
  const spoken = new Map<string, Promise<Int16Array>>();
  const hanging = new Set<ServerResponse>();

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendError(response, 500, String(error), 'server_error');
      else response.end();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const path = new URL(request.url ?? '/', 'http://emulator').pathname;
    if (
      request.method !== 'POST' ||
      !['/v1/chat/completions', '/v1/audio/speech', '/v1/embeddings'].includes(path)
    )
      return sendError(response, 404, `Unknown request ${request.method} ${path}`);
    const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!key || (options.apiKey !== undefined && key !== options.apiKey))
      return sendError(response, 401, 'Incorrect API key provided.', 'invalid_api_key');
    if (path === '/v1/audio/speech') return speech(request, response);
    if (path === '/v1/embeddings') return embeddings(request, response);
    let body: ChatRequest;
    try {
      body = JSON.parse(await readBody(request)) as ChatRequest;
    } catch {
      return sendError(response, 400, 'We could not parse the JSON body of your request.');
    }
    if (typeof body.model !== 'string' || !Array.isArray(body.messages))
      return sendError(response, 400, 'model and messages are required.');
    const index = requests.push(body) - 1;
    const reply = options.reply(body, index);

    if ('hang' in reply) {
      hanging.add(response);
      response.on('close', () => hanging.delete(response));
      return;
    }
    if ('status' in reply)
      return sendError(response, reply.status, reply.message ?? 'The server had an error.', 'server_error');

    const id = `chatcmpl-${randomBytes(12).toString('hex')}`;
    const created = Math.floor(Date.now() / 1000);
    const toolCalls = (reply.toolCalls ?? []).map((call) => ({
      id: `call_${randomBytes(12).toString('hex')}`,
      type: 'function' as const,
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    }));
    const finishReason = toolCalls.length > 0 ? 'tool_calls' : 'stop';
    const usage = tokenUsage(
      body.messages,
      (reply.say ?? '') + toolCalls.map((c) => c.function.arguments).join(''),
    );
    await sleep(reply.latencyMs ?? 0);

    if (!body.stream) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model: body.model,
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: reply.say ?? null,
                refusal: null,
                ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
              },
              finish_reason: finishReason,
              logprobs: null,
            },
          ],
          usage,
        }),
      );
      return;
    }

    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created,
        model: body.model,
        choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
      })}\n\n`;
    const write = async (text: string) => {
      if (response.destroyed) return;
      response.write(text);
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
    };
    await write(chunk({ role: 'assistant', content: '' }));
    for (const piece of pieces(reply.say ?? '')) await write(chunk({ content: piece }));
    for (const [index, call] of toolCalls.entries()) {
      await write(
        chunk({
          tool_calls: [
            { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
          ],
        }),
      );
      // Arguments arrive in pieces, as a model writes them.
      const args = call.function.arguments;
      for (let at = 0; at < args.length; at += 16)
        await write(chunk({ tool_calls: [{ index, function: { arguments: args.slice(at, at + 16) } }] }));
    }
    await write(chunk({}, finishReason));
    // As OpenAI does with stream_options.include_usage: a last chunk with no choices, and the usage.
    if ((body.stream_options as { include_usage?: boolean } | undefined)?.include_usage)
      await write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage })}\n\n`,
      );
    response.end('data: [DONE]\n\n');
  }

  async function embeddings(request: IncomingMessage, response: ServerResponse) {
    let body: { model?: unknown; input?: unknown; encoding_format?: unknown };
    try {
      body = JSON.parse(await readBody(request)) as typeof body;
    } catch {
      return sendError(response, 400, 'We could not parse the JSON body of your request.');
    }
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    if (
      typeof body.model !== 'string' ||
      !Array.isArray(inputs) ||
      !inputs.every((text) => typeof text === 'string')
    )
      return sendError(response, 400, 'model and input (a string or an array of strings) are required.');
    if (
      body.encoding_format !== undefined &&
      body.encoding_format !== 'float' &&
      body.encoding_format !== 'base64'
    )
      return sendError(response, 400, `Unknown encoding_format ${String(body.encoding_format)}.`);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        object: 'list',
        data: (inputs as string[]).map((text, index) => {
          const vector = embed(text);
          return {
            object: 'embedding',
            index,
            embedding:
              body.encoding_format === 'base64'
                ? Buffer.from(vector.buffer).toString('base64')
                : Array.from(vector),
          };
        }),
        model: body.model,
        usage: { prompt_tokens: 0, total_tokens: 0 },
      }),
    );
  }

  async function speech(request: IncomingMessage, response: ServerResponse) {
    let body: SpeechRequest;
    try {
      body = JSON.parse(await readBody(request)) as SpeechRequest;
    } catch {
      return sendError(response, 400, 'We could not parse the JSON body of your request.');
    }
    if (typeof body.input !== 'string' || !body.input || typeof body.voice !== 'string' || !body.model)
      return sendError(response, 400, 'model, input and voice are required.');
    const format = body.response_format ?? 'mp3';
    if (format !== 'pcm' && format !== 'wav')
      return sendError(response, 400, `This emulator speaks pcm and wav, not ${format}.`);
    speechRequests.push(body);
    if (faults.speechStatus)
      return sendError(response, faults.speechStatus, 'The server had an error.', 'server_error');
    let samples = spoken.get(body.input);
    if (!samples) {
      samples = speakPcm(body.input).then((pcm) => resample(pcm.samples, pcm.sampleRate, 24_000));
      spoken.set(body.input, samples);
    }
    const [pcm] = await Promise.all([samples, sleep(options.speechLatencyMs ?? 0)]);
    const data = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
    if (format === 'pcm') {
      response.writeHead(200, { 'content-type': 'audio/pcm' });
      return response.end(data);
    }
    response.writeHead(200, { 'content-type': 'audio/wav' });
    response.end(writeWav(24_000, [pcm]));
  }

  const transcription = options.transcript
    ? attachRealtimeTranscription(server, {
        transcript: options.transcript,
        ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
      })
    : null;

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    speechRequests,
    transcriptionSessions: transcription?.sessions ?? [],
    faults,
    async stop() {
      for (const response of hanging) response.destroy();
      transcription?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
