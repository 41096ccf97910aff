import type { Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';
import { randomBytes } from 'node:crypto';
import { createApiKey, hashApiKey } from '../auth/api-keys';
import { hashPassword, verifyPassword } from '../auth/passwords';
import { FlowDefinition } from '../flows/schema';
import { APPOINTMENT_CALENDAR_URL, APPOINTMENT_FLOW } from '../flows/templates';

/** Fixed ids make the seed idempotent: running it again finds the same rows. */
export const DEMO = {
  accountId: '00000000-0000-4000-a000-000000000001',
  accountName: 'Demo Company',
  agentId: '00000000-0000-4000-a000-000000000101',
  agentName: 'Demo Receptionist',
  flowAgentId: '00000000-0000-4000-a000-000000000102',
  flowAgentName: 'Demo Appointment Flow',
  numbers: ['+14155550100', '+14155550101'],
  userId: '00000000-0000-4000-a000-000000000201',
  userEmail: 'demo@example.com',
} as const;

export interface SeedDemoResult {
  accountId: string;
  agentId: string;
  /** The demo API key: `knownKey` when it is still valid, else a newly created one. */
  apiKey: string;
  apiKeyCreated: boolean;
  /** The demo dashboard login: `knownPassword` when it still signs in, else a newly set one. */
  login: { email: string; password: string };
}

/**
 * Seeds a demo account with an agent, a flow agent, two numbers (the first assigned to the agent) and an API key.
 * Keys are stored hashed, so the caller keeps the plain key and passes it back on later runs.
 */
export async function seedDemo(
  deps: CoreDeps,
  {
    knownKey,
    knownPassword,
    calendarUrl,
  }: {
    knownKey?: string;
    knownPassword?: string;
    /** Where the demo flow asks for availability (the dev stack's calendar); the template's address otherwise. */
    calendarUrl?: string;
  } = {},
): Promise<SeedDemoResult> {
  const { db, clock } = deps;
  const now = clock.now();
  await db.account.upsert({
    where: { id: DEMO.accountId },
    create: { id: DEMO.accountId, name: DEMO.accountName, createdAt: now },
    update: {},
  });
  await db.agent.upsert({
    where: { id: DEMO.agentId },
    create: {
      id: DEMO.agentId,
      accountId: DEMO.accountId,
      name: DEMO.agentName,
      language: 'en',
      voiceId: 'en-steve',
      prompt: "You are the friendly receptionist of Demo Company. Confirm the caller's appointment time.",
      welcomeMessage: 'Hello! This is Demo Company calling about your appointment.',
      createdAt: now,
    },
    update: {},
  });
  await seedDemoFlowAgent(deps, calendarUrl);
  for (const [index, number] of DEMO.numbers.entries()) {
    await db.phoneNumber.upsert({
      where: { number },
      create: {
        accountId: DEMO.accountId,
        number,
        displayName: index === 0 ? 'Demo main line' : 'Demo spare line',
        agentId: index === 0 ? DEMO.agentId : null,
        createdAt: new Date(now.getTime() + index),
      },
      update: {},
    });
  }

  const login = { email: DEMO.userEmail, password: await seedDemoUser(deps, knownPassword) };
  const seeded = { accountId: DEMO.accountId, agentId: DEMO.agentId, login };
  if (knownKey) {
    const existing = await db.apiKey.findUnique({ where: { keyHash: hashApiKey(knownKey) } });
    if (existing && existing.accountId === DEMO.accountId && !existing.revokedAt) {
      return { ...seeded, apiKey: knownKey, apiKeyCreated: false };
    }
  }
  const { key } = await createApiKey(deps, { accountId: DEMO.accountId, name: 'demo' });
  return { ...seeded, apiKey: key, apiKeyCreated: true };
}

/** The calendar address of a flow's function node that asks for availability, if any. */
function calendarOf(flow: FlowDefinition): string | undefined {
  const node = flow.nodes.find(({ id }) => id === 'check_calendar');
  return node?.type === 'function' ? node.function.url : undefined;
}

/**
 * The demo flow agent, built from the appointment template, its calendar at `calendarUrl` when given. One
 * whose flow no longer parses (an older demo's), or still asks the template's placeholder calendar when a
 * real one is given, is built again as the next version; one the user changed otherwise is left alone.
 */
async function seedDemoFlowAgent({ db, clock }: CoreDeps, calendarUrl: string | undefined) {
  const existing = await db.agent.findUnique({ where: { id: DEMO.flowAgentId } });
  const parsed = existing ? FlowDefinition.safeParse(existing.flowDefinition) : null;
  if (parsed?.success) {
    const url = calendarOf(parsed.data);
    const placeholder = url === APPOINTMENT_CALENDAR_URL || url?.startsWith('https://127.0.0.1:');
    if (!calendarUrl || !placeholder || url === calendarUrl) return;
  }
  // The flow as it is (the template for a new or unreadable one), its calendar's address the one given:
  // whatever else the user changed in the demo flow is kept.
  const base = parsed?.success ? parsed.data : FlowDefinition.parse(APPOINTMENT_FLOW);
  const flow = {
    ...base,
    nodes: base.nodes.map((node) =>
      node.type === 'function' && node.id === 'check_calendar' && calendarUrl
        ? { ...node, function: { ...node.function, url: calendarUrl } }
        : node,
    ),
  } as Prisma.InputJsonValue;
  const now = clock.now();
  const version = (existing?.version ?? 0) + 1;
  const fields = { name: DEMO.flowAgentName, flowDefinition: flow, version, deployedAt: now };
  await db.$transaction([
    db.agent.upsert({
      where: { id: DEMO.flowAgentId },
      create: {
        id: DEMO.flowAgentId,
        accountId: DEMO.accountId,
        agentType: 'conversationalFlow',
        language: 'en',
        voiceId: 'en-gabriel',
        welcomeMessage: 'Hello! This is Demo Clinic.',
        createdAt: now,
        ...fields,
      },
      update: fields,
    }),
    db.agentFlowVersion.create({
      data: { agentId: DEMO.flowAgentId, version, definition: flow, publishedAt: now },
    }),
  ]);
}

/** The demo dashboard user; its password is random, kept while it still signs in. */
async function seedDemoUser({ db, clock }: CoreDeps, knownPassword: string | undefined): Promise<string> {
  const user = await db.user.findUnique({ where: { id: DEMO.userId } });
  if (user && knownPassword && (await verifyPassword(user.passwordHash, knownPassword))) return knownPassword;
  const password = `demo-${randomBytes(12).toString('base64url')}`;
  const passwordHash = await hashPassword(password);
  await db.user.upsert({
    where: { id: DEMO.userId },
    create: {
      id: DEMO.userId,
      accountId: DEMO.accountId,
      email: DEMO.userEmail,
      name: 'Demo User',
      passwordHash,
      createdAt: clock.now(),
    },
    update: { passwordHash, failedSignIns: 0, lockedUntil: null },
  });
  return password;
}
