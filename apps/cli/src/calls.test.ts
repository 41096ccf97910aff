import { addPhoneNumber, createAccount } from '@voice/core';
import { createTestDeps, runCallToEnd } from '@voice/core/testing';
import type { TestDatabase } from '@voice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { voiceCli } from '../test/voice';

let database: TestDatabase;
let deps: Awaited<ReturnType<typeof createTestDeps>>['deps'];
let account: string;

beforeAll(async () => {
  ({ deps, database } = await createTestDeps());
  const created = await createAccount(deps, { name: 'Dialer' });
  account = created.account.id;
  const agent = await deps.db.agent.create({
    data: { accountId: account, name: 'Dial bot', voiceId: 'he-ori', prompt: 'Hi.' },
  });
  await addPhoneNumber(deps, { accountId: account, phone_number: '+14155550160' });
  await deps.db.phoneNumber.update({ where: { number: '+14155550160' }, data: { agentId: agent.id } });
});
afterAll(() => database.drop());

const voice = (...args: string[]) => voiceCli(database.url)(...args);

describe('voice calls', () => {
  it('dials, lists, shows and watches a call', async () => {
    const dialed = await voice(
      'calls',
      'dial',
      '--account',
      account,
      '--from',
      '+14155550160',
      '--to',
      '+14155550009',
      '--var',
      'name=Dana',
      '--json',
    );
    expect(dialed.code, dialed.stderr).toBe(0);
    const { call_id } = JSON.parse(dialed.stdout) as { call_id: string };
    // Without TEMPORAL_ADDRESS the CLI leaves the start to the worker's relay; run the call here instead.
    expect(await runCallToEnd(deps, call_id, { dialMs: 0, ringMs: 5, talkMs: 20 })).toBe('ended');

    const listed = await voice('calls', 'list', '--account', account);
    expect(listed.stdout).toContain(call_id);
    expect(listed.stdout).toContain('1 of 1 call(s)');
    const shown = await voice('calls', 'get', call_id, '--account', account, '--json');
    expect(JSON.parse(shown.stdout)).toMatchObject({ call_status: 'ended', vars_provided: { name: 'Dana' } });
    const watched = await voice('calls', 'watch', call_id, '--account', account);
    expect(watched.code).toBe(0);
    expect(watched.stdout).toMatch(/ended\nsummary: Dial bot spoke with/);

    const refused = await voice(
      'calls',
      'dial',
      '--account',
      account,
      '--from',
      '+14155550160',
      '--to',
      '555-0100',
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('to_number must be a valid phone number in E.164 format');
  });
});
