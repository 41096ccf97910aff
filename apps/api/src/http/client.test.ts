import { TRPCClientError } from '@trpc/client';
import { createVoiceClient } from '@voice/client';
import { addPhoneNumber, createAccount } from '@voice/core';
import { createTestDeps } from '@voice/core/testing';
import type { TestDatabase } from '@voice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from '../server';

let server: Server;
let database: TestDatabase;
let key: string;

beforeAll(async () => {
  const made = await createTestDeps();
  database = made.database;
  const created = await createAccount(made.deps, { name: 'Client Co' });
  key = created.key;
  await addPhoneNumber(made.deps, { accountId: created.account.id, phone_number: '+14155550150' });
  server = createServer({ core: made.deps, pingTemporal: async () => {} });
  await server.start();
});
afterAll(async () => {
  await server.stop();
  await database.drop();
});

describe('createVoiceClient', () => {
  it('calls tRPC procedures over HTTP with typed results', async () => {
    const client = createVoiceClient({ baseUrl: server.url, token: key });
    const [numbers, voices] = await Promise.all([
      client.phoneNumbers.list.query(),
      client.voices.list.query(),
    ]);
    expect(numbers.map((n) => n.phone_number_pretty)).toEqual(['+1 415 555 0150']);
    expect(voices.voices).toHaveLength(20);
  });

  it('surfaces errors with their HTTP status and message', async () => {
    const anonymous = createVoiceClient({ baseUrl: `${server.url}/`, token: 'vk_live_wrong' });
    const error = await anonymous.phoneNumbers.list.query().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<never>).data).toMatchObject({ httpStatus: 401, code: 'UNAUTHORIZED' });

    const client = createVoiceClient({ baseUrl: server.url, token: key });
    const notFound = await client.phoneNumbers.get
      .query({ phone_number: '+14155550999' })
      .catch((e: unknown) => e);
    expect((notFound as TRPCClientError<never>).message).toBe('Phone number not found');
  });
});
