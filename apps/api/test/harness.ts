import { Writable } from 'node:stream';
import { Connection } from '@temporalio/client';
import { AuthCache, followAuthChanges, memoryRateLimitStore, type CoreDeps } from '@voice/core';
import { createTestDeps, seedAccount } from '@voice/core/testing';
import { espeakTextToSpeech } from '@voice/providers/tts';
import { voiceSamples } from '@voice/providers/voice-samples';
import pino from 'pino';
import { inject } from 'vitest';
import { createServer, type Server, type ServerDeps } from '../src/server';

export interface TestApi {
  url: string;
  /** The database the api runs on. */
  databaseUrl: string;
  deps: CoreDeps;
  server: Server;
  /** Every log line the server wrote, parsed. */
  logs: Record<string, unknown>[];
  close(): Promise<void>;
}

/** A real api server on an ephemeral port, over a fresh database and the test run's Temporal server. */
export async function startTestApi(
  overrides: {
    pingTemporal?: () => Promise<void>;
    core?: Partial<CoreDeps>;
    /** As the api's main sets it up (offline eSpeak NG) unless given; null: none. */
    voiceSamples?: ServerDeps['voiceSamples'] | null;
    flowModel?: ServerDeps['flowModel'];
    /** A span per request (the test starts tracing itself). */
    traced?: boolean;
  } = {},
): Promise<TestApi> {
  const { deps: base, database } = await createTestDeps();
  // As production runs it: credentials cached and kept in step with the database's change notices,
  // rate-limit buckets in memory (the rate-limit tests share theirs through Redis).
  const authCache = new AuthCache();
  const authChanges = await followAuthChanges(database.url, authCache);
  const deps = { ...base, authCache, rateLimitStore: memoryRateLimitStore(), ...overrides.core };
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) logs.push(JSON.parse(line));
      done();
    },
  });
  const server = createServer({
    core: deps,
    pingTemporal:
      overrides.pingTemporal ??
      (async () => {
        await connection.workflowService.getSystemInfo({});
      }),
    logger: pino({ level: 'info' }, sink),
    ...(overrides.traced ? { traced: true } : {}),
    // The flow builder's text chat: a model that understands nothing, and a call's analysis that finds
    // every variable asked for, unless a test gives its own.
    flowModel: overrides.flowModel ?? {
      structured: async (_messages, { name, schema }) =>
        name === 'call_analysis' ? cannedAnalysis(schema) : { intent: null, variables: {} },
      complete: async () => 'Understood.',
    },
    ...(overrides.voiceSamples === null
      ? {}
      : { voiceSamples: overrides.voiceSamples ?? voiceSamples(espeakTextToSpeech) }),
  });
  const url = await server.start();
  // Links the API hands out (recording URLs) point at this server.
  deps.config.publicUrl = url;
  return {
    url,
    databaseUrl: database.url,
    deps,
    server,
    logs,
    async close() {
      await server.stop();
      await authChanges.stop();
      await connection.close();
      await database.drop();
    },
  };
}

export { seedAccount };

export async function http(
  url: string,
  init: {
    method?: string;
    key?: string;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
  } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  let body: string | undefined;
  if (init.rawBody !== undefined) body = init.rawBody;
  else if (init.body !== undefined) body = JSON.stringify(init.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(url, { method: init.method ?? 'GET', headers, body });
  const text = await response.text();
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return {
    status: response.status,
    headers: response.headers,
    json: json as Record<string, unknown> & unknown[],
    text,
  };
}

/** An analysis in the schema asked for: every variable found as `found <name>`. */
function cannedAnalysis(schema: Record<string, unknown>) {
  const properties =
    (schema as { properties?: { vars_extracted?: { properties?: Record<string, unknown> } } }).properties
      ?.vars_extracted?.properties ?? {};
  return {
    summary: 'The caller asked about an appointment.',
    detected_gender: null,
    vars_extracted: Object.fromEntries(Object.keys(properties).map((name) => [name, `found ${name}`])),
  };
}
