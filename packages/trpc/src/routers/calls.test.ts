import type { TRPCError } from '@trpc/server';
import type { TestDatabase } from '@voice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twoAccounts } from '../../test/accounts';
import { createCaller } from '../root';

let deps: Awaited<ReturnType<typeof twoAccounts>>['deps'];
let database: TestDatabase;
let alpha: Awaited<ReturnType<typeof twoAccounts>>['alpha'];
let beta: Awaited<ReturnType<typeof twoAccounts>>['beta'];

beforeAll(async () => {
  ({ deps, database, alpha, beta } = await twoAccounts());
});
afterAll(() => database.drop());

const as = (key: string) => createCaller({ deps, requestId: 'test', authorization: `Bearer ${key}` });

describe('calls.* procedures', () => {
  it('dial (idempotent), get, list, update metadata and manage test contacts', async () => {
    const api = as(alpha.key);
    const dialed = await api.calls.dial({
      from_number: '+14155550100',
      to_number: '+14155550199',
      idempotency_key: 'k1',
    });
    expect(
      await api.calls.dial({ from_number: '+14155550100', to_number: '+14155550199', idempotency_key: 'k1' }),
    ).toEqual(dialed);
    expect(await api.calls.get({ call_id: dialed.call_id })).toMatchObject({
      call_id: dialed.call_id,
      call_status: 'initiated',
    });
    expect(await api.calls.list()).toMatchObject({ total_count: 1, calls: [{ call_id: dialed.call_id }] });
    const updated = await api.calls.updateMetadata({ call_id: dialed.call_id, metadata: { ticket: 7 } });
    expect(updated.metadata).toEqual({ ticket: 7 });

    await api.calls.testContacts.add({ phone_number: '+14155550188', name: 'QA phone' });
    expect(await api.calls.testContacts.list()).toEqual([
      expect.objectContaining({ phone_number: '+14155550188', name: 'QA phone' }),
    ]);
    const testCall = await api.calls.dial({ from_number: '+14155550100', to_number: '+14155550188' });
    expect((await api.calls.get({ call_id: testCall.call_id })).is_test_call).toBe(true);
    await api.calls.testContacts.remove({ phone_number: '+14155550188' });
    expect(await api.calls.testContacts.list()).toEqual([]);
  });

  it("timeline lists the steps a call reached, in the order they happened, inside the call's account", async () => {
    const api = as(alpha.key);
    const dialed = await api.calls.dial({ from_number: '+14155550100', to_number: '+14155550177' });
    const created = (await deps.db.call.findUniqueOrThrow({ where: { id: dialed.call_id } })).createdAt;
    const at = (seconds: number) => new Date(created.getTime() + seconds * 1000);
    expect((await api.calls.timeline({ call_id: dialed.call_id })).events).toEqual([
      { event: 'created', at: created.toISOString(), status: 'initiated', detail: null },
    ]);

    // The carrier's progress and the end, as the call workflow records them.
    await deps.db.callEvent.createMany({
      data: [
        { callId: dialed.call_id, status: 'ringing', at: at(2) },
        { callId: dialed.call_id, status: 'ongoing', at: at(5) },
      ],
    });
    await deps.db.call.update({
      where: { id: dialed.call_id },
      data: {
        status: 'user_hangup',
        dialAttemptedAt: at(1),
        connectedAt: at(5),
        answeredBy: 'human',
        mediaStartedAt: at(5),
        conversationEndedAt: at(40),
        conversationEndReason: 'user_hangup',
        endedAt: at(40),
        disconnectionReason: 'user_hangup',
      },
    });
    const { events } = await api.calls.timeline({ call_id: dialed.call_id });
    expect(events.map((entry) => [entry.event, entry.at, entry.status, entry.detail])).toEqual([
      ['created', created.toISOString(), 'initiated', null],
      ['dial_sent', at(1).toISOString(), null, null],
      ['ringing', at(2).toISOString(), 'ringing', null],
      ['answered', at(5).toISOString(), 'ongoing', 'answered by human'],
      ['media_started', at(5).toISOString(), null, null],
      ['conversation_stored', at(40).toISOString(), null, 'user_hangup'],
      ['ended', at(40).toISOString(), 'user_hangup', 'user_hangup'],
    ]);

    const notFound = await as(beta.key)
      .calls.timeline({ call_id: dialed.call_id })
      .then(
        () => null,
        (e: unknown) => e as TRPCError,
      );
    expect([notFound?.code, notFound?.message]).toEqual(['NOT_FOUND', 'Call not found']);
  });

  it("keeps calls inside their account and refuses another account's number", async () => {
    const dialed = await as(alpha.key).calls.dial({ from_number: '+14155550100', to_number: '+14155550199' });
    const notFound = await as(beta.key)
      .calls.get({ call_id: dialed.call_id })
      .then(
        () => null,
        (e: unknown) => e as TRPCError,
      );
    expect([notFound?.code, notFound?.message]).toEqual(['NOT_FOUND', 'Call not found']);
    const forbidden = await as(beta.key)
      .calls.dial({ from_number: '+14155550100', to_number: '+14155550199' })
      .then(
        () => null,
        (e: unknown) => e as TRPCError,
      );
    expect(forbidden?.code).toBe('FORBIDDEN');
  });
});

describe('webhooks.deliveries.* procedures', () => {
  it('are scoped to the account', async () => {
    expect(await as(alpha.key).webhooks.deliveries.list()).toEqual([]);
    const missing = await as(alpha.key)
      .webhooks.deliveries.get({ delivery_id: '00000000-0000-4000-8000-000000000000' })
      .then(
        () => null,
        (e: unknown) => e as TRPCError,
      );
    expect([missing?.code, missing?.message]).toEqual(['NOT_FOUND', 'Delivery not found']);
    const bad = await as(alpha.key)
      .webhooks.deliveries.list({ status: 'lost' as 'failed' })
      .then(
        () => null,
        (e: unknown) => e as TRPCError,
      );
    expect(bad?.code).toBe('BAD_REQUEST');
  });
});
