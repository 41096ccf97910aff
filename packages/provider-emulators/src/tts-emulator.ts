import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody, sleep } from './http';
import { speak } from '@voice/audio';

/**
 * A text-to-speech server speaking ElevenLabs' protocol, as ElevenLabs documents it:
 * `POST /v1/text-to-speech/{voice_id}/stream?output_format=ulaw_8000` with the `xi-api-key` header and
 * `{text, model_id}`, answered with the audio streamed in chunks. The words are read by eSpeak NG (as
 * 8 kHz μ-law, the phone line's format) after a fixed latency. For tests and the offline demo only.
 */

export interface ElevenLabsRequest {
  voiceId: string;
  outputFormat: string;
  text: string;
  modelId: string;
}

export interface ElevenLabsEmulator {
  /** The API's base URL (`http://…`). */
  url: string;
  requests: ElevenLabsRequest[];
  /** Faults from now on: an HTTP status to fail with. */
  faults: { status?: number };
  stop(): Promise<void>;
}

const CHUNK_BYTES = 1_600;

function fail(response: ServerResponse, status: number, message: string) {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ detail: { status: status === 401 ? 'invalid_api_key' : 'error', message } }));
}

export async function startElevenLabsEmulator(
  options: { apiKey?: string; latencyMs?: number; port?: number } = {},
): Promise<ElevenLabsEmulator> {
  const requests: ElevenLabsRequest[] = [];
  const faults: ElevenLabsEmulator['faults'] = {};
  const spoken = new Map<string, Promise<Buffer>>();

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) fail(response, 500, String(error));
      else response.end();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://emulator');
    const route = /^\/v1\/text-to-speech\/([^/]+)(?:\/stream)?$/.exec(url.pathname);
    if (request.method !== 'POST' || !route) return fail(response, 404, 'Not found');
    const key = request.headers['xi-api-key'];
    if (!key || (options.apiKey !== undefined && key !== options.apiKey))
      return fail(response, 401, 'Invalid API key');
    const outputFormat = url.searchParams.get('output_format') ?? 'mp3_44100_128';
    if (outputFormat !== 'ulaw_8000')
      return fail(response, 422, `This emulator speaks ulaw_8000, not ${outputFormat}`);
    let body: { text?: unknown; model_id?: unknown };
    try {
      body = JSON.parse(await readBody(request)) as { text?: unknown; model_id?: unknown };
    } catch {
      return fail(response, 400, 'Invalid JSON');
    }
    if (typeof body.text !== 'string' || !body.text) return fail(response, 422, 'text is required');
    requests.push({
      voiceId: decodeURIComponent(route[1]!),
      outputFormat,
      text: body.text,
      modelId: typeof body.model_id === 'string' ? body.model_id : '',
    });
    if (faults.status) return fail(response, faults.status, 'Emulated failure');
    let audio = spoken.get(body.text);
    if (!audio) {
      audio = speak(body.text);
      spoken.set(body.text, audio);
    }
    const [bytes] = await Promise.all([audio, sleep(options.latencyMs ?? 0)]);
    response.writeHead(200, { 'content-type': 'audio/basic' });
    for (let at = 0; at < bytes.length; at += CHUNK_BYTES)
      response.write(bytes.subarray(at, at + CHUNK_BYTES));
    response.end();
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    faults,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
