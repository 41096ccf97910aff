import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '@voice/db/testing';
import { createAgent } from '../agents/create-agent';
import { duplicateAgent } from '../agents/duplicate-agent';
import { modifyAgent } from '../agents/modify-agent';
import { createAccount } from '../accounts/create-account';
import { addPhoneNumber } from '../phone-numbers/add-phone-number';
import { dialCall } from '../calls/dial-call';
import { handleCallEnded } from '../after-call/handle-call-ended';
import type { CoreDeps } from '../deps';
import {
  createTestDeps,
  runCallToEnd,
  startWebhookReceiver,
  testAgentInput,
  TEST_SECRETS_KEY,
  type WebhookReceiver,
} from '../testing/deps';
import { attemptDelivery } from '../webhooks/attempts';
import { signWebhook } from '../webhooks/signing';
import { resealSecrets } from './reseal-secrets';
import { isSealed, open, seal } from './secret-box';

const SECRET = 'whsec_c2VhbGVkLWF0LXJlc3Qtd2ViaG9vay1zZWNyZXQ=';
const HEADER_VALUE = 'Bearer tenant-token-9d1e';
const config = { secretsKey: TEST_SECRETS_KEY };
const OLD_KEY = 'an-older-secrets-key-from-before-rotation';

describe('seal and open', () => {
  it('round-trips unicode, and seals the same value differently every time', () => {
    const value = 'sé©ret ✓ 🔑 \u0000 end';
    const first = seal(config, value);
    const second = seal(config, value);
    expect(isSealed(first)).toBe(true);
    expect(first).not.toBe(second);
    expect(first).not.toContain('ret');
    expect(open(config, first)).toBe(value);
    expect(open(config, second)).toBe(value);
  });

  it('refuses a tampered value and a value sealed with a key it does not have', () => {
    const sealed = seal(config, 'value');
    const last = sealed.at(-2) === 'A' ? 'B' : 'A';
    expect(() => open(config, `${sealed.slice(0, -2)}${last}${sealed.at(-1)}`)).toThrow();
    expect(() => open({ secretsKey: OLD_KEY }, sealed)).toThrow(/SECRETS_KEY_PREVIOUS/);
  });

  it('opens with a previous key during rotation, and passes plaintext written before encryption', () => {
    const sealedWithOld = seal({ secretsKey: OLD_KEY }, 'rotated');
    expect(open({ secretsKey: TEST_SECRETS_KEY, previousSecretsKeys: [OLD_KEY] }, sealedWithOld)).toBe(
      'rotated',
    );
    expect(open(config, 'legacy plaintext')).toBe('legacy plaintext');
  });

  it('will not seal with a missing or short key', () => {
    expect(() => seal({ secretsKey: '' }, 'value')).toThrow(/SECRETS_KEY/);
  });
});

describe('webhook secrets at rest', () => {
  let deps: CoreDeps;
  let database: TestDatabase;
  let accountId: string;
  let receiver: WebhookReceiver;
  let hookUrl: string;

  beforeAll(async () => {
    ({ deps, database } = await createTestDeps());
    receiver = await startWebhookReceiver();
    deps.config.webhookAllowedHosts = [receiver.host];
    hookUrl = `http://${receiver.host}/hook`;
    accountId = (await createAccount(deps, { name: 'Sealed' })).account.id;
  });
  afterAll(async () => {
    receiver.close();
    await database.drop();
  });

  const webhook = () => ({ name: 'r', url: hookUrl, secret: SECRET, headers: { 'X-Tenant': HEADER_VALUE } });

  /** Every stored secret and header value of the account's webhooks and deliveries, as in the database. */
  async function storedValues() {
    const rows = await database.db.$queryRaw<{ secret: string | null; headers: Record<string, string> }[]>`
      SELECT secret, headers FROM agent_webhooks
      UNION ALL SELECT secret, headers FROM webhook_deliveries`;
    return rows.flatMap((row) => [row.secret, ...Object.values(row.headers)]);
  }

  it('stores webhooks and delivery snapshots sealed, and sends the opened values, signed', async () => {
    const agent = await createAgent(
      deps,
      testAgentInput(accountId, { name: 'Hooked', webhooks: [webhook()] }),
    );
    const copy = await duplicateAgent(deps, { accountId, agentId: agent.agent_id, agent_name: 'Copy' });
    expect(copy.webhooks).toHaveLength(1);
    await addPhoneNumber(deps, { accountId, phone_number: '+14155550177' });
    const { call_id } = await dialCall(deps, {
      accountId,
      from_number: '+14155550177',
      to_number: '+14155550009',
      override_agent_id: agent.agent_id,
    });
    await runCallToEnd(deps, call_id);
    const ended = await handleCallEnded(deps, call_id);
    expect(await attemptDelivery(deps, { deliveryId: ended.deliveries[0]!.deliveryId, number: 1 })).toEqual({
      outcome: 'delivered',
    });

    const stored = await storedValues();
    expect(stored).toHaveLength(6); // two webhooks and one delivery, a secret and a header each
    expect(stored.every((value) => value !== null && isSealed(value))).toBe(true);
    const dump = JSON.stringify(stored);
    for (const secret of [SECRET, SECRET.slice('whsec_'.length), HEADER_VALUE])
      expect(dump).not.toContain(secret);

    const [request] = receiver.received;
    expect(request!.headers['x-tenant']).toBe(HEADER_VALUE);
    const id = String(request!.headers['webhook-id']);
    const timestamp = Number(request!.headers['webhook-timestamp']);
    expect(request!.headers['webhook-signature']).toBe(
      signWebhook({ secret: SECRET, id, timestamp, body: request!.body }),
    );
  });

  it('treats resending the same secret as no change, and a new one as a change', async () => {
    const agent = await createAgent(deps, testAgentInput(accountId, { name: 'Same', webhooks: [webhook()] }));
    const version = async () =>
      (await database.db.agent.findUniqueOrThrow({ where: { id: agent.agent_id } })).version;
    await modifyAgent(deps, { accountId, agentId: agent.agent_id, webhooks: [webhook()] });
    expect(await version()).toBe(1);
    await modifyAgent(deps, {
      accountId,
      agentId: agent.agent_id,
      webhooks: [{ ...webhook(), secret: 'whsec_bmV3LXNlY3JldA==' }],
    });
    expect(await version()).toBe(2);
    const stored = await database.db.agentWebhook.findFirstOrThrow({ where: { agentId: agent.agent_id } });
    expect(open(config, stored.secret!)).toBe('whsec_bmV3LXNlY3JldA==');
  });

  it('reseals plaintext rows and rows sealed with a previous key, and then has nothing left to do', async () => {
    const agent = await createAgent(deps, testAgentInput(accountId, { name: 'Legacy', webhooks: [] }));
    const legacy = await database.db.agentWebhook.create({
      data: {
        agentId: agent.agent_id,
        position: 0,
        name: 'legacy',
        url: hookUrl,
        secret: SECRET,
        headers: { 'X-Tenant': seal({ secretsKey: OLD_KEY }, HEADER_VALUE) },
      },
    });
    const rotated = { ...deps, config: { ...deps.config, previousSecretsKeys: [OLD_KEY] } };
    const counts = await resealSecrets(rotated);
    expect(counts.webhooks).toBe(1);
    const after = await database.db.agentWebhook.findUniqueOrThrow({ where: { id: legacy.id } });
    expect(open(config, after.secret!)).toBe(SECRET);
    expect(open(config, (after.headers as Record<string, string>)['X-Tenant']!)).toBe(HEADER_VALUE);
    expect((await storedValues()).every((value) => value === null || isSealed(value))).toBe(true);
    expect(await resealSecrets(rotated)).toEqual({ webhooks: 0, deliveries: 0, carrier_connections: 0 });
  });
});
