import { createAccount, createAgent, open, seal, type CoreDeps } from '@voice/core';
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
    });
    const after = await database.db.agentWebhook.findUniqueOrThrow({ where: { id: row.id } });
    expect(open(config, after.secret!)).toBe('whsec_cGxhaW50ZXh0');
    expect(open(config, (after.headers as Record<string, string>)['X-Tenant']!)).toBe('tenant-3');
  });
});
