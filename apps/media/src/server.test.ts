import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mulawDecode, parseWav, rms, speak } from '@voice/audio';
import {
  createMediaStreamToken,
  localRecordingStore,
  type CoreDeps,
  type ServiceEnd,
  type TranscriptEntry,
} from '@voice/core';
import { createTestDeps, seedAccount } from '@voice/core/testing';
import type { TestDatabase } from '@voice/db/testing';
import { waitFor } from '@voice/dev';
import {
  startLlmEmulator,
  startSttEmulator,
  type ChatRequest,
  type LlmEmulator,
  type LlmReply,
  type SttEmulator,
} from '@voice/provider-emulators';
import { openMediaStream, type CalleeTurn, type MediaStream } from '@voice/twilio-emulator';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type TextToSpeech,
  deepgramSpeechToText,
  espeakTextToSpeech,
  openAiLanguageModel,
  openAiTextToSpeech,
  withFallback,
} from '@voice/providers';
import { startMediaServer, type MediaServer } from './server';

/**
 * The media server holding real conversations: Twilio's side of the stream from the carrier emulator
 * (a callee speaking eSpeak audio in real time), speech-to-text and the language model from their
 * protocol emulators, speech from eSpeak NG, the call and its agent in a real database.
 */

let deps: CoreDeps;
let database: TestDatabase;
let recordingsDir: string;
let accountId: string;
let agentId: string;

interface Harness {
  server: MediaServer;
  llm: LlmEmulator;
  stt: SttEmulator;
  ends: { callId: string; request: ServiceEnd }[];
  /** Calls whose workflow was told the conversation is stored. */
  stored: string[];
}
let harness: Harness | undefined;
const streams: MediaStream[] = [];

beforeAll(async () => {
  ({ deps, database } = await createTestDeps());
  recordingsDir = await mkdtemp(join(tmpdir(), 'recordings-'));
  const seeded = await seedAccount(deps, 'Media', ['+14155550100']);
  accountId = seeded.account.id;
  agentId = seeded.agent.id;
});
afterEach(async () => {
  for (const stream of streams.splice(0)) await stream.stop();
  await harness?.server.stop();
  await harness?.llm.stop();
  await harness?.stt.stop();
  harness = undefined;
});
afterAll(async () => {
  await database?.drop();
  await rm(recordingsDir, { recursive: true, force: true });
});

async function start(options: {
  reply: (request: ChatRequest, index: number) => LlmReply;
  heard: string[];
  silenceTimeoutMs?: number;
  tts?: TextToSpeech;
}): Promise<Harness> {
  const llm = await startLlmEmulator({ apiKey: 'sk-test', reply: options.reply });
  const stt = await startSttEmulator({
    apiKey: 'dg-test',
    transcript: (index) => options.heard[index] ?? '',
  });
  const ends: Harness['ends'] = [];
  const stored: string[] = [];
  const server = await startMediaServer(
    {
      core: {
        ...deps,
        workflows: {
          ...deps.workflows,
          endCall: async (callId, request) => {
            ends.push({ callId, request });
            return true;
          },
          conversationEnded: async (callId) => void stored.push(callId),
        },
      },
      providers: {
        llm: openAiLanguageModel({
          apiKey: 'sk-test',
          baseUrl: llm.baseUrl,
          model: 'gpt-test',
          timeoutMs: 2_000,
        }),
        stt: deepgramSpeechToText({
          apiKey: 'dg-test',
          baseUrl: stt.url,
          model: 'nova-2',
          endpointingMs: 300,
        }),
        tts: options.tts ?? espeakTextToSpeech,
      },
      limits: { silenceTimeoutMs: options.silenceTimeoutMs ?? 20_000, maxDurationMs: 60_000 },
      recordings: localRecordingStore(recordingsDir),
      logger: pino({ level: 'silent' }),
    },
    { host: '127.0.0.1', port: 0 },
  );
  harness = { server, llm, stt, ends, stored };
  return harness;
}

async function answeredCall(agent: { welcomeMessage: string; prompt?: string; llmModel?: string }) {
  await deps.db.agent.update({
    where: { id: agentId },
    data: {
      welcomeMessage: agent.welcomeMessage,
      prompt: agent.prompt ?? 'You book appointments.',
      language: 'en',
      llmModel: agent.llmModel ?? null,
    },
  });
  const call = await deps.db.call.create({
    data: {
      id: randomUUID(),
      accountId,
      agentId,
      fromNumber: '+14155550100',
      toNumber: '+14155550008',
      status: 'ongoing',
      varsProvided: { name: 'Dana' },
    },
  });
  return call.id;
}

function connect(callId: string, script: CalleeTurn[], token?: string) {
  const stream = openMediaStream({
    url: harness!.server.url,
    parameters: {
      callId,
      token:
        token ??
        createMediaStreamToken(deps.config.jwtSecret, callId, { now: new Date(), validForMs: 60_000 }),
    },
    accountSid: 'AC0',
    callSid: `CA${callId.replace(/-/g, '')}`,
    script,
  });
  streams.push(stream);
  return stream;
}

async function storedCall(callId: string) {
  await waitFor('the conversation to be stored', 30_000, async () =>
    Boolean((await deps.db.call.findUniqueOrThrow({ where: { id: callId } })).conversationEndedAt),
  );
  const row = await deps.db.call.findUniqueOrThrow({ where: { id: callId } });
  return { ...row, transcript: row.transcript as unknown as TranscriptEntry[] };
}

const spokenMs = (audio: Buffer) => audio.length / 8;
/** Milliseconds of a channel louder than silence. */
const loudMs = (samples: Int16Array) => {
  let loud = 0;
  for (let at = 0; at + 160 <= samples.length; at += 160)
    if (rms(samples.subarray(at, at + 160)) > 400) loud += 20;
  return loud;
};

describe('a conversation on the media server', () => {
  it('speaks the welcome, follows the caller, collects what it is told and ends the call with end_call', async () => {
    const heard = ['Hi, this is Dana.', 'Tuesday morning works for me.'];
    await start({
      heard,
      reply: (_, index) =>
        index === 0
          ? {
              say: 'Nice to meet you, Dana. Which day suits you?',
              toolCalls: [{ name: 'collect_variable', arguments: { name: 'first_name', value: 'Dana' } }],
            }
          : {
              say: 'Tuesday morning it is. Goodbye!',
              toolCalls: [
                { name: 'collect_variable', arguments: { name: 'slot', value: 'Tuesday morning' } },
                { name: 'collect_variable', arguments: { name: '_scratch', value: 'never stored' } },
                { name: 'end_call', arguments: { goal_reached: true, reason: 'booked' } },
              ],
            },
    });
    const callId = await answeredCall({
      welcomeMessage: 'Hello {{name}}, this is the clinic.',
      llmModel: 'agent-model',
    });
    const welcome = await speak('Hello Dana, this is the clinic.');
    const stream = connect(callId, [
      { pauseMs: spokenMs(welcome) + 2_000 },
      { text: heard[0]! },
      { pauseMs: 5_000 },
      { text: heard[1]! },
    ]);
    await stream.opened;

    const row = await storedCall(callId);
    expect(harness!.ends).toEqual([{ callId, request: { action: 'hang_up', reason: 'ended' } }]);
    expect(harness!.stored).toEqual([callId]);
    expect(row.conversationEndReason).toBe('ended');
    expect(row.transcript.map(({ role, content }) => [role, content])).toEqual([
      ['agent', 'Hello Dana, this is the clinic.'],
      ['caller', heard[0]],
      ['agent', 'Nice to meet you, Dana. Which day suits you?'],
      ['caller', heard[1]],
      ['agent', 'Tuesday morning it is. Goodbye!'],
    ]);
    const times = row.transcript.map((entry) => entry.timestamp_ms);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(row.varsCollected).toEqual({ first_name: 'Dana', slot: 'Tuesday morning' });

    // The callee heard the welcome: the agent's audio starts with it, as long as eSpeak makes it.
    const welcomeHeard = stream.record.audio().subarray(0, welcome.length);
    expect(Math.abs(loudMs(mulawDecode(welcomeHeard)) - loudMs(mulawDecode(welcome)))).toBeLessThan(200);
    expect(stream.record.marks.length).toBeGreaterThanOrEqual(3);
    expect(stream.record.errors).toEqual([]);

    // The figures: two answers timed, the pipeline's own share of each well under the whole.
    const metrics = await (
      await fetch(harness!.server.url.replace(/^ws/, 'http').replace('/media/twilio', '/metrics'))
    ).text();
    expect(metrics).toMatch(/^media_reply_latency_ms_count 2$/m);
    expect(metrics).toMatch(/^media_reply_overhead_ms_count 2$/m);

    // The model saw the prompt, with the caller's words and the tool results.
    const [first, second] = harness!.llm.requests;
    expect(first!.messages[0]).toEqual({ role: 'system', content: 'You book appointments.' });
    // The agent's own model, not the deployment's.
    expect(first!.model).toBe('agent-model');
    expect(first!.messages.at(-1)).toEqual({ role: 'user', content: heard[0] });
    expect(first!.tools!.map((tool) => tool.function.name)).toEqual(['collect_variable', 'end_call']);
    expect(second!.messages.some((message) => message.role === 'tool')).toBe(true);

    // Both sides recorded, time-aligned: the caller (left) loud when the caller spoke, the agent (right) when it did.
    const wav = await localRecordingStore(recordingsDir).get(row.recordingKey!);
    const chunks: Buffer[] = [];
    for await (const chunk of wav!.body) chunks.push(chunk as Buffer);
    const file = Buffer.concat(chunks);
    expect(file.readUInt16LE(22)).toBe(2);
    const frames = (file.length - 44) / 4;
    const left = new Int16Array(frames);
    const right = new Int16Array(frames);
    for (let i = 0; i < frames; i++) {
      left[i] = file.readInt16LE(44 + i * 4);
      right[i] = file.readInt16LE(46 + i * 4);
    }
    expect(parseWav(file).sampleRate).toBe(8000);
    const at = (ms: number) => Math.floor(ms * 8);
    const window = (samples: Int16Array, fromMs: number, toMs: number) =>
      samples.subarray(at(fromMs), at(toMs));
    const callerAt = row.transcript[1]!.timestamp_ms;
    // The agent spoke first, the caller was silent meanwhile.
    expect(loudMs(window(right, 0, 1_000))).toBeGreaterThan(300);
    expect(loudMs(window(left, 0, 1_000))).toBe(0);
    // The caller's words start at the time of the caller's entry, on the left, while the agent is silent.
    expect(loudMs(window(left, callerAt - 200, callerAt + 1_000))).toBeGreaterThan(500);
    expect(loudMs(window(right, callerAt, callerAt + 1_000))).toBe(0);
  });

  it('stops speaking when the caller talks over it, and keeps only what was played', async () => {
    const long =
      'Let me tell you about all of our opening hours. On Monday we open at eight. On Tuesday we open at nine. ' +
      'On Wednesday we open at ten. On Thursday we open at eleven. On Friday we open at noon.';
    await start({ heard: ['Sorry, can I stop you there?'], reply: () => ({ say: 'Of course.' }) });
    const callId = await answeredCall({ welcomeMessage: long });
    const stream = connect(callId, [{ pauseMs: 2_500 }, { text: 'Sorry, can I stop you there?' }]);
    await stream.opened;
    await waitFor('the answer to the interruption to play', 30_000, async () => {
      const clear = stream.record.clears[0];
      return Boolean(
        clear && stream.record.marks.some((m) => m.receivedAt > clear.at && m.echoedAt !== null),
      );
    });
    await stream.stop();

    const row = await storedCall(callId);
    expect(row.conversationEndReason).toBe('user_hangup');
    expect(harness!.ends).toEqual([]);
    expect(stream.record.clears.length).toBe(1);
    expect(stream.record.clears[0]!.at).toBeGreaterThan(2_500);
    const cut = row.transcript[0]!;
    expect(cut.role).toBe('agent');
    expect(long.startsWith(cut.content)).toBe(true);
    expect(cut.content.length).toBeGreaterThan(10);
    expect(cut.content.length).toBeLessThan(long.length / 2);
    expect(row.transcript.slice(1).map(({ role, content }) => [role, content])).toEqual([
      ['caller', 'Sorry, can I stop you there?'],
      ['agent', 'Of course.'],
    ]);
    // The model was told only what the caller heard.
    expect(harness!.llm.requests[0]!.messages[1]).toEqual({ role: 'assistant', content: cut.content });
  });

  it('refuses a stream without a valid token for its call, and a second stream for the same call', async () => {
    await start({ heard: [], reply: () => ({ say: 'Hi.' }) });
    const callId = await answeredCall({ welcomeMessage: 'Hello.' });
    const forged = connect(callId, [], `v1.${callId}.9999999999.forged`);
    await forged.closed;
    expect(forged.record.closed).toMatchObject({ code: 1008, by: 'service' });
    const first = connect(callId, []);
    await first.opened;
    await waitFor('the welcome', 10_000, async () => first.record.marks.length > 0);
    const second = connect(callId, []);
    await second.closed;
    expect(second.record.closed).toMatchObject({ code: 1008 });
    expect((await deps.db.call.findUniqueOrThrow({ where: { id: callId } })).mediaStartedAt).not.toBeNull();
  });

  it('apologises and ends the call when the language model keeps failing', async () => {
    await start({ heard: ['Hello?', 'Hello, anyone there?'], reply: () => ({ status: 500 }) });
    const callId = await answeredCall({ welcomeMessage: 'Hi.' });
    const stream = connect(callId, [
      { pauseMs: 1_500 },
      { text: 'Hello?' },
      { pauseMs: 5_000 },
      { text: 'Hello, anyone there?' },
    ]);
    await stream.opened;
    const row = await storedCall(callId);
    expect(row.conversationEndReason).toBe('agent_hangup');
    expect(harness!.ends).toEqual([{ callId, request: { action: 'hang_up', reason: 'agent_hangup' } }]);
    const agentTurns = row.transcript.filter((entry) => entry.role === 'agent').map((entry) => entry.content);
    expect(agentTurns[0]).toBe('Hi.');
    expect(agentTurns.length).toBe(3);
    expect(agentTurns.at(-1)).toMatch(/technical difficulties/);
  });

  it('speaks with eSpeak NG when the text-to-speech provider fails, rather than leave the caller in silence', async () => {
    const speech = await startLlmEmulator({ apiKey: 'sk-test', reply: () => ({ say: '' }) });
    speech.faults.speechStatus = 503;
    const fallbacks: string[] = [];
    try {
      const provider = openAiTextToSpeech({
        apiKey: 'sk-test',
        baseUrl: speech.baseUrl,
        model: 'tts',
        timeoutMs: 2_000,
      });
      await start({
        heard: [],
        reply: () => ({ say: 'Hi.' }),
        tts: withFallback(provider, espeakTextToSpeech, (error) => fallbacks.push(error.message)),
      });
      const callId = await answeredCall({ welcomeMessage: 'Hello, this is the clinic.' });
      const stream = connect(callId, []);
      await stream.opened;
      await waitFor('the welcome to play', 15_000, async () =>
        stream.record.marks.some((m) => m.echoedAt !== null),
      );
      expect(loudMs(mulawDecode(stream.record.played()))).toBeGreaterThan(500);
      expect(speech.speechRequests.map((request) => request.input)).toContain('Hello, this is the clinic.');
      expect(fallbacks.length).toBeGreaterThan(0);
    } finally {
      await speech.stop();
    }
  });
});
