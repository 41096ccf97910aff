import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@voice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { voiceCli, voiceExecutable } from '../test/voice';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

const voice = (...args: string[]) =>
  voiceCli(database.url, { WEBHOOK_ALLOWED_HOSTS: 'orders.example.com' })(...args);

async function json<T>(...args: string[]): Promise<T> {
  const result = await voice(...args, '--json');
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

describe('voice CLI', () => {
  it('creates an account, manages its numbers and keys, with tables and JSON', async () => {
    const account = await json<{ account_id: string; api_key: string }>(
      'accounts',
      'create',
      '--name',
      'Cli Co',
    );
    expect(account.api_key).toMatch(/^vk_live_/);

    const added = await json<{ phone_number_pretty: string; status: string }>(
      'numbers',
      'add',
      '+14155550123',
      '--account',
      account.account_id,
      '--display-name',
      'Sales',
    );
    expect(added).toMatchObject({ phone_number_pretty: '+1 415 555 0123', status: 'unassigned' });

    const table = await voice('numbers', 'list', '--account', account.account_id);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('+1 415 555 0123');
    expect(table.stdout).toContain('┌');

    const agent = await database.db.agent.create({
      data: { accountId: account.account_id, name: 'Sales bot', voiceId: 'he-ori' },
    });
    const assigned = await json<{ status: string; agent_name: string }>(
      'numbers',
      'assign',
      '+14155550123',
      '--account',
      account.account_id,
      '--agent',
      agent.id,
    );
    expect(assigned).toMatchObject({ status: 'active', agent_name: 'Sales bot' });
    const unassigned = await json<{ status: string }>(
      'numbers',
      'unassign',
      '+14155550123',
      '--account',
      account.account_id,
    );
    expect(unassigned.status).toBe('unassigned');
    const released = await json<{ released: boolean }>(
      'numbers',
      'release',
      '+14155550123',
      '--account',
      account.account_id,
    );
    expect(released).toEqual({ phone_number: '+14155550123', released: true });
    expect((await voice('numbers', 'list', '--account', account.account_id)).stdout).not.toContain(
      '+1 415 555 0123',
    );

    const created = await json<{ id: string; api_key: string }>(
      'keys',
      'create',
      '--account',
      account.account_id,
      '--name',
      'ci',
    );
    const keys = await json<{ id: string; revoked_at: string | null }[]>(
      'keys',
      'list',
      '--account',
      account.account_id,
    );
    expect(keys.map((k) => k.id)).toContain(created.id);
    expect(JSON.stringify(keys)).not.toContain(created.api_key);
    const revoked = await json<{ revoked_at: string | null }>(
      'keys',
      'revoke',
      created.id,
      '--account',
      account.account_id,
    );
    expect(revoked.revoked_at).not.toBeNull();

    const rates = await json<{ own: unknown; rates: { carrier_per_minute: number; currency: string } }>(
      'accounts',
      'cost-rates',
      account.account_id,
      '--rates',
      '{"carrier_per_minute": 0.0085}',
    );
    expect(rates.own).toEqual({ carrier_per_minute: 0.0085 });
    expect(rates.rates).toMatchObject({ carrier_per_minute: 0.0085, currency: 'USD' });
    const refused = await voice(
      'accounts',
      'cost-rates',
      account.account_id,
      '--rates',
      '{"currency":"EUR"}',
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('a currency comes with every rate in it');
    const back = await json<{ own: unknown }>('accounts', 'cost-rates', account.account_id, '--default');
    expect(back.own).toBeNull();
  });

  it('fails with a clear message and a non-zero exit code on bad input', async () => {
    const badNumber = await voice(
      'numbers',
      'add',
      '0501234567',
      '--account',
      '00000000-0000-4000-8000-000000000000',
    );
    expect(badNumber.code).not.toBe(0);
    expect(badNumber.stderr).toContain('Account 00000000-0000-4000-8000-000000000000 not found');

    const badAccount = await voice('keys', 'list', '--account', 'nope');
    expect(badAccount.code).not.toBe(0);
    expect(badAccount.stderr).toContain('account: must be an account id (UUID)');

    const account = await json<{ account_id: string }>('accounts', 'create', '--name', 'Strict');
    const invalid = await voice('numbers', 'add', '0501234567', '--account', account.account_id);
    expect(invalid.code).not.toBe(0);
    expect(invalid.stderr).toContain('phone_number must be a valid phone number in E.164 format');
    expect(await database.db.phoneNumber.count({ where: { accountId: account.account_id } })).toBe(0);
  });

  it('runs as the compiled executable: help and results on stdout, errors on stderr, exit codes a shell sees', async () => {
    const shell = voiceExecutable(database.url);
    const help = await shell('--help');
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toContain('Operate the voice agent calling service');

    const unknown = await shell('accounts', 'list');
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toContain("error: unknown command 'list'");

    const created = await shell('accounts', 'create', '--name', 'Shell Co', '--json');
    expect(created.code, created.stderr).toBe(0);
    const { account_id } = JSON.parse(created.stdout) as { account_id: string };
    const refused = await shell('numbers', 'add', '0501234567', '--account', account_id);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toBe(
      'error: phone_number must be a valid phone number in E.164 format, e.g. +14155550123\n',
    );
  });

  it('seeds the demo idempotently, reusing a still-valid key', async () => {
    const first = await json<{ api_key: string; api_key_created: boolean }>('seed', 'demo');
    expect(first.api_key_created).toBe(true);
    const second = await json<{ api_key: string; api_key_created: boolean }>(
      'seed',
      'demo',
      '--key',
      first.api_key,
    );
    expect(second).toMatchObject({ api_key: first.api_key, api_key_created: false });
    expect(
      await database.db.phoneNumber.count({ where: { accountId: '00000000-0000-4000-a000-000000000001' } }),
    ).toBe(2);
    expect(
      await database.db.agent.count({ where: { accountId: '00000000-0000-4000-a000-000000000001' } }),
    ).toBe(2);
  });
});

describe('voice agents', () => {
  it('creates, lists, modifies and duplicates agents, and creates flow agents from a file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'voice-cli-'));
    const { account_id: account } = await json<{ account_id: string }>(
      'accounts',
      'create',
      '--name',
      'Agents Co',
    );
    await writeFile(
      join(dir, 'agent.json'),
      JSON.stringify({
        prompt: 'Confirm the order.',
        variables_provided: [{ name: 'order_id' }],
        webhooks: [{ name: 'Orders', url: 'https://orders.example.com/hook', secret: 'cli-secret-123' }],
      }),
    );
    const created = await json<{
      agent_id: string;
      name: string;
      variables_provided: unknown[];
      webhooks: { has_secret: boolean }[];
    }>(
      'agents',
      'create',
      '--account',
      account,
      '--from-json',
      join(dir, 'agent.json'),
      '--name',
      'Orders bot',
      '--voice',
      'Dana',
    );
    expect(created).toMatchObject({
      name: 'Orders bot',
      variables_provided: [{ name: 'order_id' }],
      webhooks: [{ has_secret: true }],
    });

    const modified = await json<{ welcome_message: string }>(
      'agents',
      'modify',
      created.agent_id,
      '--account',
      account,
      '--welcome-message',
      'Hello from the CLI',
    );
    expect(modified.welcome_message).toBe('Hello from the CLI');
    const copy = await json<{ name: string }>(
      'agents',
      'duplicate',
      created.agent_id,
      '--account',
      account,
      '--name',
      'Orders copy',
    );
    expect(copy.name).toBe('Orders copy');

    await writeFile(
      join(dir, 'flow.json'),
      JSON.stringify({
        start: 'hi',
        nodes: [
          { id: 'hi', type: 'say', speech: { kind: 'text', content: 'Hi' } },
          { id: 'end', type: 'end' },
        ],
        edges: [{ id: 'hi-end', from: 'hi', to: 'end', condition: { type: 'always' } }],
      }),
    );
    const flow = await json<{ agent_id: string; agent_type: string }>(
      'agents',
      'create-flow',
      '--account',
      account,
      '--name',
      'Flow',
      '--flow',
      join(dir, 'flow.json'),
    );
    expect(flow.agent_type).toBe('conversationalFlow');
    const exported = await voice('agents', 'export-flow', flow.agent_id, '--account', account);
    expect(exported.code).toBe(0);
    expect(JSON.parse(exported.stdout)).toEqual({
      start: 'hi',
      global_prompt: '',
      human_handoff: null,
      nodes: [
        { id: 'hi', name: '', type: 'say', speech: { kind: 'text', content: 'Hi' } },
        { id: 'end', name: '', type: 'end' },
      ],
      edges: [{ id: 'hi-end', from: 'hi', to: 'end', condition: { type: 'always' } }],
    });
    // A flow that does not validate is refused, with what is wrong and where.
    await writeFile(
      join(dir, 'dead-end.json'),
      JSON.stringify({
        start: 'hi',
        nodes: [{ id: 'hi', type: 'say', speech: { kind: 'text', content: 'Hi' } }],
      }),
    );
    const deadEnd = await voice(
      'agents',
      'create-flow',
      '--account',
      account,
      '--name',
      'X',
      '--flow',
      join(dir, 'dead-end.json'),
    );
    expect(deadEnd.code).not.toBe(0);
    expect(deadEnd.stderr).toContain('hi: hi is a dead end: connect it, or make it an end node');

    const table = await voice('agents', 'list', '--account', account);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('Orders copy');
    expect(table.stdout).toContain('3 of 3 agent(s)');

    const refused = await voice(
      'agents',
      'create',
      '--account',
      account,
      '--name',
      'x',
      '--prompt',
      'y',
      '--voice',
      'Nobody',
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/Invalid voice "Nobody"\. Valid voices: /);
  });
});
