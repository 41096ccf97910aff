import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { TERMINAL_STATUSES, type CoreDeps } from '@voice/core';
import { seedAccount, serviceDeps } from '@voice/core/testing';
import type { Call, CallEvent } from '@voice/db';
import { createTestDatabase, type TestDatabase } from '@voice/db/testing';
import {
  callApi,
  freePort,
  JWT_SECRET,
  SECRETS_KEY,
  serviceEnv,
  startApi,
  startMedia,
  startWorker,
  stopAll,
  waitFor,
  type ApiProcess,
  type ApiResponse,
  type MediaProcess,
  type WorkerProcess,
} from '@voice/dev';
import {
  startLlmEmulator,
  startSttEmulator,
  type LlmEmulator,
  type LlmEmulatorOptions,
  type SttEmulator,
  type SttEmulatorOptions,
} from '@voice/provider-emulators';
import { startTwilioEmulator, type EmulatorOptions, type TwilioEmulator } from '@voice/twilio-emulator';

/** The number the seeded account dials from; its agent answers the account's inbound calls. */
export const FROM = '+14155550180';

const TERMINAL = new Set<string>(TERMINAL_STATUSES);

export interface StackOptions {
  emulator?: EmulatorOptions;
  /** How long a call waits for a callback before fetching the call (CARRIER_SAFETY_NET_MS). */
  safetyNetMs?: number;
  /** Hosts webhooks may use although not public (a receiver on loopback). */
  webhookAllowedHosts?: string;
  /** More environment for every service (the api, the worker and the media server). */
  env?: Record<string, string>;
  /**
   * Live conversations: the media server, with the language model and speech-to-text at their
   * emulators (their scripts given here), and the carrier emulator's media streams on.
   */
  voice?: {
    llm: LlmEmulatorOptions['reply'];
    stt: SttEmulatorOptions['transcript'];
    media?: Record<string, string>;
  };
}

/** The voice pipeline's parts of a stack. */
export interface VoiceParts {
  media: MediaProcess;
  llm: LlmEmulator;
  stt: SttEmulator;
  recordingsDir: string;
}

/**
 * The service as it runs with Twilio: a real api and worker (CARRIER=twilio) on a test database and
 * the suite's Temporal server, with Twilio's REST API at the emulator (TWILIO_API_BASE_URL) and the
 * emulator's status callbacks signed and posted to the api at PUBLIC_URL. Nothing in the services
 * knows it is not Twilio.
 */
export class TelephonyStack {
  private constructor(
    readonly database: TestDatabase,
    readonly deps: CoreDeps,
    readonly emulator: TwilioEmulator,
    readonly env: Record<string, string>,
    readonly api: ApiProcess,
    public worker: WorkerProcess,
    readonly seeded: Awaited<ReturnType<typeof seedAccount>>,
    private readonly temporal: Connection,
    readonly client: Client,
    public voice: VoiceParts | null,
  ) {}

  static async start(name: string, temporalAddress: string, options: StackOptions = {}) {
    const database = await createTestDatabase();
    const deps = serviceDeps(database.db, { jwtSecret: JWT_SECRET, secretsKey: SECRETS_KEY });
    const seeded = await seedAccount(deps, name, [FROM]);
    const emulator = await startTwilioEmulator({
      ringMs: 100,
      talkMs: 2_000,
      ...(options.voice ? { mediaStreams: true } : {}),
      ...options.emulator,
    });
    const port = await freePort();
    const mediaPort = await freePort();
    const voice = options.voice
      ? {
          llm: await startLlmEmulator({ apiKey: 'sk-telephony', reply: options.voice.llm }),
          stt: await startSttEmulator({ apiKey: 'dg-telephony', transcript: options.voice.stt }),
          recordingsDir: mkdtempSync(join(tmpdir(), 'recordings-')),
        }
      : null;
    const env = {
      ...serviceEnv({
        databaseUrl: database.url,
        temporalAddress,
        taskQueue: `telephony-${randomBytes(4).toString('hex')}`,
        ...(options.webhookAllowedHosts ? { webhookAllowedHosts: options.webhookAllowedHosts } : {}),
      }),
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      CARRIER: 'twilio',
      TWILIO_ACCOUNT_SID: emulator.accountSid,
      TWILIO_AUTH_TOKEN: emulator.authToken,
      TWILIO_API_BASE_URL: emulator.url,
      CARRIER_SAFETY_NET_MS: String(options.safetyNetMs ?? 60_000),
      ...(voice
        ? {
            MEDIA_PUBLIC_URL: `ws://127.0.0.1:${mediaPort}/media/twilio`,
            RECORDINGS_DIR: voice.recordingsDir,
            OPENAI_API_KEY: 'sk-telephony',
            OPENAI_BASE_URL: voice.llm.baseUrl,
            LLM_TIMEOUT_MS: '3000',
            DEEPGRAM_API_KEY: 'dg-telephony',
            DEEPGRAM_BASE_URL: voice.stt.url,
          }
        : {}),
      ...options.env,
    };
    const [api, worker, media] = await Promise.all([
      startApi(`${name} api`, env),
      startWorker(`${name} worker`, env),
      voice ? startMedia(`${name} media`, { ...env, ...options.voice?.media }, mediaPort) : undefined,
    ]);
    const temporal = await Connection.connect({ address: temporalAddress });
    return new TelephonyStack(
      database,
      deps,
      emulator,
      env,
      api,
      worker,
      seeded,
      temporal,
      new Client({ connection: temporal }),
      voice && media ? { ...voice, media } : null,
    );
  }

  /** The api, as a client with the account's key calls it. */
  request(path: string, init: { method?: string; body?: unknown } = {}): Promise<ApiResponse> {
    return callApi(this.api.url, path, { ...init, key: this.seeded.key });
  }

  /** Dials `to` from the account's number through the REST API; the new call's id. */
  async dial(to: string): Promise<string> {
    const response = await this.request('/functions/v1/call-dial', {
      method: 'POST',
      body: { from_number: FROM, to_number: to },
    });
    if (response.status !== 201) throw new Error(`call-dial answered ${response.status}: ${response.text}`);
    return (response.json as { call_id: string }).call_id;
  }

  /** The full call object, as call-get returns it. */
  async getCall(callId: string): Promise<Record<string, unknown>> {
    const response = await this.request(`/functions/v1/call-get/${callId}`);
    if (response.status !== 200) throw new Error(`call-get answered ${response.status}: ${response.text}`);
    return response.json as Record<string, unknown>;
  }

  async row(callId: string): Promise<Call & { events: CallEvent[] }> {
    return this.deps.db.call.findUniqueOrThrow({
      where: { id: callId },
      include: { events: { orderBy: { at: 'asc' } } },
    });
  }

  /** Waits until the call reaches a terminal status; its row with its events. */
  async ended(callId: string, timeoutMs = 30_000): Promise<Call & { events: CallEvent[] }> {
    let row: (Call & { events: CallEvent[] }) | undefined;
    await waitFor(
      `call ${callId} to end`,
      timeoutMs,
      async () => {
        row = await this.row(callId);
        return TERMINAL.has(row.status);
      },
      { intervalMs: 100, detail: () => `${JSON.stringify(row)}\n${this.output()}` },
    );
    return row!;
  }

  /** Waits until the callee answered the call. */
  async answered(callId: string): Promise<void> {
    await waitFor(
      `call ${callId} to be answered`,
      15_000,
      async () => (await this.row(callId)).status === 'ongoing',
      { detail: () => this.output() },
    );
  }

  /** The emulated Twilio call placed for a call row. */
  async carrierCall(callId: string) {
    const { carrierCallId } = await this.row(callId);
    const call = carrierCallId ? this.emulator.call(carrierCallId) : undefined;
    if (!call) throw new Error(`No emulated call for ${callId} (carrier id ${carrierCallId})`);
    return call;
  }

  async restartWorker(): Promise<void> {
    if (this.worker.running()) await this.worker.stop();
    this.worker = await startWorker(`${this.worker.name}`, this.env);
  }

  async restartMedia(): Promise<void> {
    const voice = this.voice!;
    if (voice.media.running()) await voice.media.stop();
    const port = Number(new URL(voice.media.healthUrl).port);
    voice.media = await startMedia(voice.media.name, this.env, port);
  }

  output(): string {
    return [this.api, this.worker, this.voice?.media]
      .filter((service) => service !== undefined)
      .map((service) => `--- ${service.name}\n${service.output()}`)
      .join('\n');
  }

  async close(): Promise<void> {
    await stopAll([this.api, this.worker, this.voice?.media]);
    await this.voice?.llm.stop();
    await this.voice?.stt.stop();
    if (this.voice) rmSync(this.voice.recordingsDir, { recursive: true, force: true });
    await this.emulator.close();
    await this.temporal.close();
    await this.database.drop();
  }
}
