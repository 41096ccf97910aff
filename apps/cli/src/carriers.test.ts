import { createAccount, type CoreDeps } from '@voice/core';
import { createTestDeps } from '@voice/core/testing';
import type { TestDatabase } from '@voice/db/testing';
import { startTwilioEmulator, type TwilioEmulator } from '@voice/twilio-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { voiceCli } from '../test/voice';

let database: TestDatabase;
let deps: CoreDeps;
let twilio: TwilioEmulator;

beforeAll(async () => {
  ({ deps, database } = await createTestDeps());
  twilio = await startTwilioEmulator({ numbers: ['+14155550160'] });
});
afterAll(async () => {
  await twilio?.close();
  await database?.drop();
});

describe('voice carriers', () => {
  it("connects an account's Twilio account with the token from the environment, and refuses a wrong one", async () => {
    const { account } = await createAccount(deps, { name: 'Carrier CLI' });
    const env = { TWILIO_API_BASE_URL: twilio.url };
    const refused = await voiceCli(database.url, { ...env, CARRIER_AUTH_TOKEN: 'wrong' })(
      'carriers',
      'connect',
      twilio.accountSid,
      '--account',
      account.id,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Twilio refused these credentials');
    expect(await database.db.carrierConnection.count()).toBe(0);

    const voice = voiceCli(database.url, { ...env, CARRIER_AUTH_TOKEN: twilio.authToken });
    const connected = await voice(
      'carriers',
      'connect',
      twilio.accountSid,
      '--account',
      account.id,
      '--json',
    );
    expect(connected.code, connected.stderr).toBe(0);
    const connection = JSON.parse(connected.stdout) as Record<string, unknown>;
    expect(connection).toMatchObject({
      provider: 'twilio',
      account_sid: twilio.accountSid,
      phone_numbers: [],
    });
    expect(connected.stdout).not.toContain(twilio.authToken);

    const id = String(connection.carrier_connection_id);
    const notOwned = await voice(
      'numbers',
      'add',
      '+14155550161',
      '--account',
      account.id,
      '--carrier-connection',
      id,
    );
    expect(notOwned.code).toBe(1);
    expect(notOwned.stderr).toContain('does not have the number');
    const added = await voice(
      'numbers',
      'add',
      '+14155550160',
      '--account',
      account.id,
      '--carrier-connection',
      id,
    );
    expect(added.code, added.stderr).toBe(0);
    const listed = await voice('carriers', 'list', '--account', account.id, '--json');
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ phone_numbers: ['+14155550160'] })]);

    const busy = await voice('carriers', 'disconnect', id, '--account', account.id);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain('still has numbers');
  });
});
