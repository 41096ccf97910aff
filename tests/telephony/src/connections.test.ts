import { createVoiceClient } from '@voice/client';
import { isSealed } from '@voice/core';
import type { EmulatedAccount } from '@voice/twilio-emulator';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TelephonyStack } from './support/stack';

/**
 * An account connects its own Twilio account: the credentials are checked with Twilio when saved and
 * sealed at rest, a number is the account's only where that Twilio account has it, and the calls from
 * and to such a number go through that account (its REST credentials, its signed callbacks).
 */

const OWNED = '+14155550190';
const OWNED_TOO = '+14155550191';
const NOT_OWNED = '+14155550192';
const CALLER = '+14155550778';

let stack: TelephonyStack;
let client: ReturnType<typeof createVoiceClient>;
let customer: EmulatedAccount;

beforeAll(async () => {
  stack = await TelephonyStack.start('Connections', inject('temporalAddress'));
  client = createVoiceClient({ baseUrl: stack.api.url, token: stack.seeded.key });
  customer = stack.emulator.addAccount({ friendlyName: 'Acme Twilio' });
  customer.addNumber(OWNED);
  customer.addNumber(OWNED_TOO);
});
afterAll(() => stack?.close());

const connect = (body: Record<string, unknown>) =>
  stack.request('/functions/v1/carrier-connection-create', { method: 'POST', body });
const stored = () => stack.deps.db.carrierConnection.findMany();

/** What a call of tRPC answers: its error code, or 'OK'. */
async function outcome(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'OK';
  } catch (error) {
    return (error as { data?: { code?: string } }).data?.code ?? String(error);
  }
}

describe('carrier connections', () => {
  let connectionId: string;

  it('refuses credentials Twilio refuses, and malformed ones, writing nothing', async () => {
    const before = stack.emulator.requests.length;
    const refused = [
      { account_sid: customer.sid, auth_token: 'not-the-token' },
      { account_sid: `AC${'0'.repeat(32)}`, auth_token: customer.authToken },
      {
        account_sid: customer.sid,
        auth_token: customer.authToken,
        api_key_sid: `SK${'1'.repeat(32)}`,
        api_key_secret: 'x',
      },
    ];
    for (const body of refused) {
      const response = await connect(body);
      expect(response.status, response.text).toBe(422);
      expect((response.json as { error: string }).error).toMatch(/Twilio refused these credentials/);
    }
    // Twilio was asked each time: the adapter checks credentials against the API, not their shape.
    expect(stack.emulator.requests.length - before).toBeGreaterThanOrEqual(refused.length);

    const suspended = stack.emulator.addAccount({ status: 'suspended' });
    const response = await connect({ account_sid: suspended.sid, auth_token: suspended.authToken });
    expect(response.status).toBe(422);
    expect((response.json as { error: string }).error).toMatch(/is suspended, not active/);

    for (const body of [
      {},
      { account_sid: 'AC123', auth_token: 'x' },
      { account_sid: customer.sid },
      { account_sid: customer.sid, auth_token: 'x', api_key_sid: `SK${'1'.repeat(32)}` },
      { account_sid: customer.sid, auth_token: 'x', provider: 'vonage' },
      { account_sid: customer.sid, auth_token: 'x', unknown: true },
    ])
      expect((await connect(body)).status).toBe(400);
    expect(await stored()).toEqual([]);
  });

  it('connects with credentials Twilio accepts, seals them and never returns them', async () => {
    const key = customer.addApiKey();
    const response = await connect({
      account_sid: customer.sid,
      auth_token: customer.authToken,
      api_key_sid: key.sid,
      api_key_secret: key.secret,
    });
    expect(response.status, response.text).toBe(201);
    expect(response.json).toEqual({
      carrier_connection_id: expect.any(String),
      provider: 'twilio',
      account_sid: customer.sid,
      api_key_sid: key.sid,
      name: 'Acme Twilio',
      phone_numbers: [],
      created_at: expect.any(String),
      verified_at: expect.any(String),
    });
    connectionId = (response.json as { carrier_connection_id: string }).carrier_connection_id;
    const [row] = await stored();
    expect(isSealed(row!.credentials)).toBe(true);
    for (const secret of [customer.authToken, key.secret]) {
      expect(row!.credentials).not.toContain(secret);
      expect(response.text).not.toContain(secret);
      expect((await stack.request('/functions/v1/carrier-connection-list')).text).not.toContain(secret);
      expect(
        (await stack.request(`/functions/v1/carrier-connection-get/${connectionId}`)).text,
      ).not.toContain(secret);
    }
    // The same Twilio account again is a conflict, and checks nothing.
    expect((await connect({ account_sid: customer.sid, auth_token: customer.authToken })).status).toBe(409);
    const openapi = (await stack.request('/openapi.json')).json as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining([
        '/functions/v1/carrier-connection-create',
        '/functions/v1/carrier-connection-list',
        '/functions/v1/carrier-connection-get/{carrier_connection_id}',
        '/functions/v1/carrier-connection-update/{carrier_connection_id}',
        '/functions/v1/carrier-connection-delete/{carrier_connection_id}',
      ]),
    );
  });

  it('takes only numbers the connected Twilio account has, and points their calls at the service', async () => {
    const numbersBefore = await stack.deps.db.phoneNumber.count();
    expect(
      await outcome(
        client.phoneNumbers.add.mutate({ phone_number: NOT_OWNED, carrier_connection_id: connectionId }),
      ),
    ).toBe('UNPROCESSABLE_CONTENT');
    expect(await stack.deps.db.phoneNumber.count()).toBe(numbersBefore);

    await client.phoneNumbers.add.mutate({ phone_number: OWNED, carrier_connection_id: connectionId });
    await client.phoneNumbers.add.mutate({ phone_number: OWNED_TOO, carrier_connection_id: connectionId });
    for (const number of [OWNED, OWNED_TOO])
      expect(customer.numbers.get(number)).toMatchObject({
        voiceUrl: `${stack.env.PUBLIC_URL}/carrier/twilio/voice`,
        statusCallback: `${stack.env.PUBLIC_URL}/carrier/twilio/status`,
      });
    const assigned = await client.phoneNumbers.assign.mutate({
      phone_number: OWNED,
      agent_id: stack.seeded.agent.id,
    });
    expect(assigned.agent_id).toBe(stack.seeded.agent.id);
    expect(
      (await client.carrierConnections.get.query({ carrier_connection_id: connectionId })).phone_numbers,
    ).toEqual([OWNED, OWNED_TOO]);

    // Released at Twilio: the number can no longer be assigned, and stays as it was.
    customer.numbers.delete(OWNED_TOO);
    expect(
      await outcome(
        client.phoneNumbers.assign.mutate({ phone_number: OWNED_TOO, agent_id: stack.seeded.agent.id }),
      ),
    ).toBe('UNPROCESSABLE_CONTENT');
    expect((await client.phoneNumbers.get.query({ phone_number: OWNED_TOO })).agent_id).toBeNull();
  });

  it("dials from a connected number through that Twilio account, with the account's API key", async () => {
    const response = await stack.request('/functions/v1/call-dial', {
      method: 'POST',
      body: { from_number: OWNED, to_number: '+14155550042' },
    });
    expect(response.status, response.text).toBe(201);
    const callId = (response.json as { call_id: string }).call_id;
    const ended = await stack.ended(callId);
    expect(ended.status).toBe('user_hangup');
    const carrierCall = await stack.carrierCall(callId);
    expect(carrierCall.accountSid).toBe(customer.sid);
    const create = stack.emulator.requests.find(
      (request) =>
        request.method === 'POST' && request.path === `/2010-04-01/Accounts/${customer.sid}/Calls.json`,
    );
    expect(create?.user).toBe([...customer.apiKeys.keys()][0]);
    // Its callbacks were signed with the connected account's token, and accepted.
    expect(carrierCall.callbacks.map((callback) => callback.status)).toEqual(
      carrierCall.callbacks.map(() => 204),
    );
  });

  it("answers incoming calls to a connected number where the number's configuration sends them", async () => {
    const carrierCall = await stack.emulator.callIn({ from: CALLER, to: OWNED });
    expect(carrierCall.answer?.status).toBe(200);
    expect(carrierCall.answer?.twiml).toContain('<Connect><Stream');
    const [row] = await stack.deps.db.call.findMany({ where: { carrierCallId: carrierCall.sid } });
    expect(row).toMatchObject({ direction: 'incoming', toNumber: OWNED, agentId: stack.seeded.agent.id });
    expect((await stack.ended(row!.id)).status).toBe('user_hangup');
  });

  it("refuses another Twilio account's callbacks about a connected number's call", async () => {
    const [call] = await stack.deps.db.call.findMany({ where: { fromNumber: OWNED } });
    const before = await stack.row(call!.id);
    const url = `${stack.env.PUBLIC_URL}/carrier/twilio/status/${call!.id}`;
    const post = (params: Record<string, string>, token: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-twilio-signature': twilio.getExpectedTwilioSignature(token, url, params),
        },
        body: new URLSearchParams(params).toString(),
      }).then((response) => response.status);
    const params = (accountSid: string) => ({
      AccountSid: accountSid,
      CallSid: call!.carrierCallId!,
      CallStatus: 'completed',
      CallDuration: '99',
      Timestamp: new Date().toUTCString(),
      SequenceNumber: '9',
    });
    // The deployment's own account, correctly signed: not its call.
    expect(await post(params(stack.emulator.accountSid), stack.emulator.authToken)).toBe(404);
    // Claiming the deployment's account with the customer's token: the signature does not hold.
    expect(await post(params(stack.emulator.accountSid), customer.authToken)).toBe(403);
    expect(await stack.row(call!.id)).toEqual(before);
  });

  it('replaces the credentials only with ones Twilio accepts', async () => {
    const before = (await stored())[0]!;
    customer.authToken = 'rotated-token-0123456789';
    const update = (fields: Record<string, unknown>) =>
      stack.request(`/functions/v1/carrier-connection-update/${connectionId}`, {
        method: 'PATCH',
        body: fields,
      });
    expect((await update({ auth_token: 'still-wrong' })).status).toBe(422);
    expect((await stored())[0]).toEqual(before);
    const updated = await update({ auth_token: customer.authToken, api_key_sid: null, api_key_secret: null });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toMatchObject({ api_key_sid: null });
    expect((await stored())[0]!.verifiedAt.getTime()).toBeGreaterThan(before.verifiedAt.getTime());
  });

  it('disconnects only a connection no number uses', async () => {
    const remove = () =>
      stack.request(`/functions/v1/carrier-connection-delete/${connectionId}`, { method: 'DELETE' });
    const refused = await remove();
    expect(refused.status).toBe(409);
    expect((refused.json as { error: string }).error).toContain(OWNED);
    expect(await stored()).toHaveLength(1);
    await stack.deps.db.phoneNumber.deleteMany({ where: { carrierConnectionId: connectionId } });
    expect((await remove()).status).toBe(200);
    expect(await stored()).toEqual([]);
    expect((await stack.request(`/functions/v1/carrier-connection-get/${connectionId}`)).status).toBe(404);
  });
});
