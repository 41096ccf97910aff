import {
  APPOINTMENT_FLOW,
  createAccount,
  createAgent,
  createFlowAgent,
  open,
  seal,
  type CoreDeps,
} from '@voice/core';
import { createTestDeps, testAgentInput, TEST_SECRETS_KEY } from '@voice/core/testing';
import type { TestDatabase } from '@voice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { voiceCli } from '../test/voice';

const OLD_KEY = 'the-key-these-secrets-were-sealed-with-before';
const config = { secretsKey: TEST_SECRETS_KEY };
let database: TestDatabase;
let deps: CoreDeps;

beforeAll(async () => {
  ({ deps, database } = await createTestDeps());
});
afterAll(() => database.drop());

describe('voice secrets reseal', () => {
  it('seals plaintext and previous-key values with SECRETS_KEY, and refuses without the previous key', async () => {
    const { account } = await createAccount(deps, { name: 'Rotation' });
    const agent = await createAgent(deps, testAgentInput(account.id, { name: 'Old hooks' }));
    const row = await database.db.agentWebhook.create({
      data: {
        agentId: agent.agent_id,
        position: 0,
        name: 'legacy',
        url: 'https://hooks.example/r',
        secret: 'whsec_cGxhaW50ZXh0',
        headers: { 'X-Tenant': seal({ secretsKey: OLD_KEY }, 'tenant-3') },
      },
    });
    // A flow whose calendar function's secret and header were sealed with the old key.
    const flowAgent = await createFlowAgent(
      { ...deps, config: { ...deps.config, secretsKey: OLD_KEY } },
      {
        accountId: account.id,
        name: 'Old flow',
        language: 'en',
        voice: 'en-steve',
        welcome_message: '',
        variables_provided: [],
        variables_extracted: [],
        flow: {
          ...APPOINTMENT_FLOW,
          nodes: APPOINTMENT_FLOW.nodes.map((node) =>
            node.type === 'function'
              ? {
                  ...node,
                  function: {
                    ...node.function,
                    secret: 'whsec_Y2FsZW5kYXItc2VjcmV0',
                    headers: { 'X-Key': 'k-9' },
                  },
                }
              : node,
          ),
        },
      },
    );
    const voice = voiceCli(database.url);

    const refused = await voice('secrets', 'reseal');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('SECRETS_KEY_PREVIOUS');

    const done = await voiceCli(database.url, { SECRETS_KEY_PREVIOUS: OLD_KEY })(
      'secrets',
      'reseal',
      '--json',
    );
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toEqual({
      webhooks_resealed: 1,
      deliveries_resealed: 0,
      carrier_connections_resealed: 0,
      flows_resealed: 2,
    });
    const calendarOf = (flow: unknown) =>
      (flow as typeof APPOINTMENT_FLOW).nodes.find((node) => node.type === 'function')!;
    const stored = await database.db.agent.findUniqueOrThrow({ where: { id: flowAgent.agent_id } });
    const version = await database.db.agentFlowVersion.findFirstOrThrow({
      where: { agentId: flowAgent.agent_id },
    });
    for (const fn of [calendarOf(stored.flowDefinition), calendarOf(version.definition)]) {
      if (fn.type !== 'function') throw new Error('not a function node');
      expect(open(config, fn.function.secret!)).toBe('whsec_Y2FsZW5kYXItc2VjcmV0');
      expect(open(config, fn.function.headers['X-Key']!)).toBe('k-9');
    }
    const after = await database.db.agentWebhook.findUniqueOrThrow({ where: { id: row.id } });
    expect(open(config, after.secret!)).toBe('whsec_cGxhaW50ZXh0');
    expect(open(config, (after.headers as Record<string, string>)['X-Tenant']!)).toBe('tenant-3');
  });
});
