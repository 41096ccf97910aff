import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  type SttStreamInfo,
} from '@voice/provider-emulators';
import {
  deepgramSpeechToText,
  espeakTextToSpeech,
  openAiLanguageModel,
  type SpeechToText,
  type TextToSpeech,
} from '@voice/providers';
import {
  openMediaStream,
  type CalleeTurn,
  type MediaStream,
  type MediaStreamRecord,
} from '@voice/twilio-emulator';
import pino from 'pino';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { AdmissionLimits } from './admission';
import { startMediaServer, type MediaServer } from './server';

/**
 * The media server holding real conversations, for the media server's tests: Twilio's side of each
 * stream from the carrier emulator (a callee speaking eSpeak audio in real time, the agent's audio
 * played out with marks echoed as played), speech-to-text and the language model from their protocol
 * emulators, speech from eSpeak NG, the call and its agent in a real database. The call's workflow is
 * stood in for: what the server asks of it is recorded.
 */

export interface Harness {
  server: MediaServer;
  llm: LlmEmulator;
  stt: SttEmulator;
  ends: { callId: string; request: ServiceEnd }[];
  /** The marks of each call's stream as they stood when the server asked to end the call. */
  marksAtEnd: Map<string, MediaStreamRecord['marks']>;
  /** Calls whose workflow was told the conversation is stored. */
  stored: string[];
}

export interface StartOptions {
  reply: (request: ChatRequest, index: number) => LlmReply;
  heard: string[];
  /** What each stream's utterances say, instead of `heard` (the same for every stream). */
  transcript?: (utterance: number, stream: SttStreamInfo) => string;
  silenceTimeoutMs?: number;
  tts?: TextToSpeech;
  /** Speech-to-text other than the emulator's. */
  stt?: SpeechToText;
  /** Where the server logs (silent unless given). */
  logger?: pino.Logger;
  /** Where the server listens for voicemail requests: the test database unless given. */
  databaseUrl?: string;
  /** How long a warm transfer's caller waits for the colleague (the server's default unless given). */
  transferWaitMs?: number;
  /**
   * What the server takes on. The callers, the emulators and the server share this process's event
   * loop, so its measures of the loop are off unless given; the calls held refuse lines (100).
   */
  admission?: Partial<AdmissionLimits>;
}

/** Registers the suite's hooks (a database, a recordings directory; each test's server stopped after it). */
export function mediaTestHarness() {
  let deps: CoreDeps;
  let database: TestDatabase;
  let recordingsDir: string;
  let accountId: string;
  let agentId: string;
  let harness: Harness | undefined;
  const streams = new Map<string, MediaStream>();

  beforeAll(async () => {
    ({ deps, database } = await createTestDeps());
    recordingsDir = await mkdtemp(join(tmpdir(), 'recordings-'));
    const seeded = await seedAccount(deps, 'Media', ['+14155550100']);
    accountId = seeded.account.id;
    agentId = seeded.agent.id;
  });
  afterEach(async () => {
    await Promise.all([...streams.values()].map((stream) => stream.stop()));
    streams.clear();
    await harness?.server.stop();
    await harness?.llm.stop();
    await harness?.stt.stop();
    harness = undefined;
  });
  afterAll(async () => {
    await database?.drop();
    await rm(recordingsDir, { recursive: true, force: true });
  });

  async function start(options: StartOptions): Promise<Harness> {
    const llm = await startLlmEmulator({ apiKey: 'sk-test', reply: options.reply });
    const stt = await startSttEmulator({
      apiKey: 'dg-test',
      transcript: options.transcript ?? ((index) => options.heard[index] ?? ''),
    });
    const ends: Harness['ends'] = [];
    const marksAtEnd: Harness['marksAtEnd'] = new Map();
    const stored: string[] = [];
    const server = await startMediaServer(
      {
        core: {
          ...deps,
          workflows: {
            ...deps.workflows,
            endCall: async (callId, request) => {
              ends.push({ callId, request });
              const marks = streams.get(callId)?.record.marks ?? [];
              marksAtEnd.set(callId, structuredClone(marks));
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
          stt:
            options.stt ??
            deepgramSpeechToText({
              apiKey: 'dg-test',
              baseUrl: stt.url,
              model: 'nova-2',
              endpointingMs: 300,
            }),
          tts: options.tts ?? espeakTextToSpeech,
        },
        limits: {
          silenceTimeoutMs: options.silenceTimeoutMs ?? 20_000,
          maxDurationMs: 60_000,
          ...(options.transferWaitMs ? { transferWaitMs: options.transferWaitMs } : {}),
        },
        recordings: localRecordingStore(recordingsDir),
        logger: options.logger ?? pino({ level: 'silent' }),
        heartbeatMs: 200,
        databaseUrl: options.databaseUrl ?? database.url,
        admission: { maxLoopDelayMs: 0, maxLoopUtilization: 0, ...options.admission },
      },
      { host: '127.0.0.1', port: 0 },
    );
    harness = { server, llm, stt, ends, marksAtEnd, stored };
    return harness;
  }

  async function answeredCall(agent: {
    welcomeMessage: string;
    prompt?: string;
    llmModel?: string;
    language?: string;
    /** The message left on an answering machine (voicemail_action leave_message); none unless given. */
    voicemail?: { message: string };
    /** Dashboard settings (agents.conversation_settings); the defaults unless given. */
    settings?: Record<string, string | number | boolean>;
    /** Where the agent transfers calls (transfer_call_enabled); no transfers unless given. */
    transferTo?: string;
  }) {
    await deps.db.agent.update({
      where: { id: agentId },
      data: {
        welcomeMessage: agent.welcomeMessage,
        prompt: agent.prompt ?? 'You book appointments.',
        language: agent.language ?? 'en',
        llmModel: agent.llmModel ?? null,
        voicemailAction: agent.voicemail ? 'leave_message' : 'continue',
        voicemailMessage: agent.voicemail?.message ?? '',
        conversationSettings: agent.settings ?? {},
        transferCallEnabled: agent.transferTo !== undefined,
        ...(agent.transferTo ? { transferCallDestination: agent.transferTo } : {}),
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

  /**
   * Twilio opening the call's media stream; `playoutDelayMs` is its jitter buffer, `parameters` more of
   * its `<Parameter>`s (a warm transfer's colleague's stream names the transfer).
   */
  function connect(
    callId: string,
    script: CalleeTurn[],
    options: { token?: string; playoutDelayMs?: number; parameters?: Record<string, string> } = {},
  ) {
    const stream = openMediaStream({
      url: harness!.server.url,
      parameters: {
        callId,
        token:
          options.token ??
          createMediaStreamToken(deps.config.jwtSecret, callId, { now: new Date(), validForMs: 60_000 }),
        ...options.parameters,
      },
      accountSid: 'AC0',
      callSid: `CA${callId.replace(/-/g, '')}`,
      script,
      ...(options.playoutDelayMs ? { playoutDelayMs: options.playoutDelayMs } : {}),
    });
    // A second stream for the same call is kept too (it is stopped after the test).
    streams.set(streams.has(callId) ? `${callId}#${streams.size}` : callId, stream);
    return stream;
  }

  async function storedCall(callId: string) {
    await waitFor('the conversation to be stored', 30_000, async () =>
      Boolean((await deps.db.call.findUniqueOrThrow({ where: { id: callId } })).conversationEndedAt),
    );
    const row = await deps.db.call.findUniqueOrThrow({ where: { id: callId } });
    return { ...row, transcript: row.transcript as unknown as TranscriptEntry[] };
  }

  /** The media server's metrics, as Prometheus reads them. */
  async function metrics(): Promise<string> {
    const url = harness!.server.url.replace(/^ws/, 'http').replace('/media/twilio', '/metrics');
    return (await fetch(url)).text();
  }

  /** The stored recording's two channels: the caller left, the agent right. */
  async function recording(recordingKey: string) {
    const wav = await localRecordingStore(recordingsDir).get(recordingKey);
    const chunks: Buffer[] = [];
    for await (const chunk of wav!.body) chunks.push(chunk as Buffer);
    const file = Buffer.concat(chunks);
    const frames = (file.length - 44) / 4;
    const left = new Int16Array(frames);
    const right = new Int16Array(frames);
    for (let i = 0; i < frames; i++) {
      left[i] = file.readInt16LE(44 + i * 4);
      right[i] = file.readInt16LE(46 + i * 4);
    }
    return { file, left, right };
  }

  return {
    start,
    answeredCall,
    connect,
    storedCall,
    metrics,
    recording,
    get deps() {
      return deps;
    },
    get databaseUrl() {
      return database.url;
    },
    get harness() {
      return harness!;
    },
  };
}

export const spokenMs = (audio: Buffer) => audio.length / 8;

/** A long welcome, for a caller to talk over, and what the caller says. */
export const OPENING_HOURS =
  'Let me tell you about all of our opening hours. On Monday we open at eight. On Tuesday we open at nine. ' +
  'On Wednesday we open at ten. On Thursday we open at eleven. On Friday we open at noon.';
export const INTERRUPTION = 'Sorry, can I stop you there?';
