import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createTestDatabase, type TestDatabase } from '@voice/db/testing';
import { createSimulatedCarrier, type SimulatedCarrierOptions } from '../telephony/simulated-carrier';
import { deterministicConversationEngine } from '../calls/simulated/conversation';
import { checkCall, placeCall, type CallProgress } from '../calls/carrier-progress';
import { deferredWorkflows, systemClock, type Clock, type CoreDeps, type WorkflowStarter } from '../deps';
import { systemResolver } from '../network/resolver';
import type { Db } from '@voice/db';
import type { HostResolver } from '../network/resolver';
import type { CreateAgentData } from '../agents/schemas';
import { createAccount } from '../accounts/create-account';
import { addPhoneNumber } from '../phone-numbers/add-phone-number';

export const TEST_JWT_SECRET = 'test-jwt-secret-that-is-long-enough-for-hs256';
export const TEST_SECRETS_KEY = 'test-secrets-key-that-seals-webhook-secrets';
export { TEST_REDIS_URL } from './env';
export * from './https-endpoint';

/**
 * Core dependencies over the database that real service processes run on, with their secrets: for a
 * test to seed and inspect what the services see (system clock and DNS; it starts no workflows itself).
 */
export function serviceDeps(db: Db, config: { jwtSecret: string; secretsKey: string }): CoreDeps {
  return { db, clock: systemClock, resolveHost: systemResolver, config, workflows: deferredWorkflows };
}

/** A clock tests can move. */
export function manualClock(
  start = new Date('2026-01-01T00:00:00.000Z'),
): Clock & { advance(ms: number): void } {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    advance(ms: number) {
      now += ms;
    },
  };
}

/**
 * A resolver over a fixed table, so tests never depend on real DNS: names ending in `.example` (the
 * reserved documentation domain) resolve to a public documentation-free address unless listed.
 */
export function fakeResolver(table: Record<string, string[]> = {}): HostResolver {
  return async (hostname) => {
    const listed = table[hostname];
    if (listed) return listed;
    if (hostname.endsWith('.example') || hostname.endsWith('.example.com')) return ['93.184.215.14'];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };
}

export async function createTestDeps(
  clock: Clock = { now: () => new Date() },
  overrides: Partial<Omit<CoreDeps, 'db' | 'clock'>> = {},
): Promise<{
  deps: CoreDeps;
  database: TestDatabase;
}> {
  const database = await createTestDatabase();
  return {
    deps: {
      db: database.db,
      clock,
      resolveHost: fakeResolver(),
      config: { jwtSecret: TEST_JWT_SECRET, secretsKey: TEST_SECRETS_KEY },
      workflows: deferredWorkflows,
      ...overrides,
    },
    database,
  };
}

/**
 * Runs a call to its end with the same activities the call workflow runs, in this process, for tests
 * that need finished calls without a Temporal worker.
 */
export async function runCallToEnd(
  deps: CoreDeps,
  callId: string,
  carrier: SimulatedCarrierOptions = { dialMs: 0, ringMs: 5, talkMs: 40 },
): Promise<CallProgress['status']> {
  const runtime = {
    ...deps,
    carrier: createSimulatedCarrier(carrier),
    conversation: deterministicConversationEngine,
  };
  let progress = await placeCall(runtime, callId);
  while (!progress.terminal) {
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, progress.nextCheckInMs)));
    progress = await checkCall(runtime, callId);
  }
  return progress.status;
}

/** A complete create-agent input for tests: a short prompt, voice Steve, nothing else unless given. */
export function testAgentInput(
  accountId: string,
  overrides: Partial<CreateAgentData> & { name: string },
): { accountId: string } & CreateAgentData {
  return {
    accountId,
    prompt: 'Hi.',
    language: 'en',
    voice: 'Steve',
    welcome_message: '',
    variables_provided: [],
    variables_extracted: [],
    notification_emails: [],
    webhooks: [],
    transfer_call_enabled: false,
    transfer_call_destination: null,
    voicemail_action: 'continue',
    voicemail_message: '',
    ring_timeout_seconds: null,
    llm_model: null,
    agent_type: 'singlePrompt',
    ...overrides,
  };
}

/** An account with an API key, an agent and the given numbers (the first assigned to the agent). */
export async function seedAccount(deps: CoreDeps, name: string, numbers: string[]) {
  const { account, key } = await createAccount(deps, { name });
  const agent = await deps.db.agent.create({
    data: { accountId: account.id, name: `${name} agent`, voiceId: 'he-ori', prompt: 'Be helpful.' },
  });
  for (const [index, phone_number] of numbers.entries()) {
    await addPhoneNumber(deps, { accountId: account.id, phone_number });
    if (index === 0)
      await deps.db.phoneNumber.update({ where: { number: phone_number }, data: { agentId: agent.id } });
  }
  return { account, key, agent };
}

export interface WebhookReceiver {
  /** `127.0.0.1:<port>`, for webhook URLs and the allow-list. */
  host: string;
  /** Every request it received, in order. */
  received: { headers: IncomingHttpHeaders; body: string }[];
  close(): void;
}

/** An HTTP receiver on loopback that records every request and answers `status`. */
export async function startWebhookReceiver(status = 200): Promise<WebhookReceiver> {
  const received: WebhookReceiver['received'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  return { host, received, close: () => server.close() };
}

/** Workflow starts that succeed and run nothing, for tests about input and access, not Temporal. */
export const startsNothing: WorkflowStarter = {
  startCallWorkflow: async () => {},
  startWebhookDelivery: async () => {},
  startCampaignWorkflow: async () => {},
  startAgentTest: async () => {},
  wakeCampaign: async () => {},
  reportCarrierEvent: async () => {},
  endCall: async () => true,
  conversationEnded: async () => {},
};
