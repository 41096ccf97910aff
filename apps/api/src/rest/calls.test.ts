import { randomUUID } from 'node:crypto';
import {
  FullCall,
  LightweightCall,
  OlderFullCall,
  OlderLightweightCall,
  addTestContact,
  CSRF_HEADER,
  SESSION_COOKIE,
  createUser,
  signIn,
  signUserToken,
  signedRecordingUrl,
  callInclude,
  webCallTokens,
} from '@voice/core';
import { TEST_JWT_SECRET, runCallToEnd } from '@voice/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, seedAccount, startTestApi, type TestApi } from '../../test/harness';
import { createCaller } from '@voice/trpc';

const LIGHT = [
  'agent',
  'call_id',
  'call_status',
  'call_type',
  'direction',
  'disconnection_reason',
  'duration_ms',
  'from_number',
  'is_test_call',
  'start_timestamp',
  'to_number',
];
const FULL = [
  ...LIGHT,
  // The extensions of the full call object (docs/telephony.md, "Voicemail").
  'answered_by',
  'voicemail_left',
  'detected_gender',
  'recording_url',
  'summary',
  'transcript',
  'vars_collected',
  'vars_extracted',
  'vars_provided',
].sort();
const OLDER_LIGHT = [...LIGHT, 'account', 'call_cost'].sort();
const OLDER_FULL = [...FULL, 'account', 'call_cost', 'end_timestamp', 'metadata'].sort();

type Json = Record<string, unknown>;
const keysOf = (value: unknown) => Object.keys(value as Json).sort();

let api: TestApi;
let alpha: Awaited<ReturnType<typeof seedAccount>>;
let beta: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  api = await startTestApi();
  alpha = await seedAccount(api.deps, 'Alpha', ['+14155550100', '+14155550101']);
  beta = await seedAccount(api.deps, 'Beta', ['+14155550102']);
  await api.deps.db.agent.update({
    where: { id: alpha.agent.id },
    data: {
      variablesProvided: [
        { name: 'patient', description: '', default: 'friend' },
        { name: 'clinic', description: '', default: 'Smile' },
      ],
      variablesExtracted: [{ name: 'slot', description: 'a time', required: true }],
    },
  });
});
afterAll(() => api.close());

const dial = (body: unknown, init: { key?: string; headers?: Record<string, string> } = {}) =>
  http(`${api.url}/functions/v1/call-dial`, { method: 'POST', key: alpha.key, body, ...init });

const complete = (callId: string) => runCallToEnd(api.deps, callId);

describe('call-dial', () => {
  it('accepts a call: 201 with exactly the spec fields, variables merged, call-local ones dropped', async () => {
    const res = await dial({
      from_number: '+14155550100',
      to_number: '+14155550199',
      vars_provided: { patient: 'Dana', _otp: '1234', count: 3 },
    });
    expect(res.status).toBe(201);
    expect(keysOf(res.json)).toEqual([
      'agent_id',
      'call_id',
      'call_status',
      'call_type',
      'direction',
      'from_number',
      'to_number',
    ]);
    expect(res.json).toMatchObject({
      call_status: 'initiated',
      call_type: 'phone_call',
      agent_id: alpha.agent.id,
      from_number: '+14155550100',
      to_number: '+14155550199',
      direction: 'outgoing',
    });
    const row = await api.deps.db.call.findUniqueOrThrow({ where: { id: res.json.call_id as string } });
    expect(row.varsProvided).toEqual({ patient: 'Dana', clinic: 'Smile', count: '3' });
    expect(row.agentVersion).toBe(1);
  });

  it('older create-phone-call takes dynamic_variables', async () => {
    const res = await http(`${api.url}/v1/create-phone-call`, {
      method: 'POST',
      key: alpha.key,
      body: {
        from_number: '+14155550100',
        to_number: '+14155550199',
        dynamic_variables: { patient: 'Omer' },
      },
    });
    expect(res.status).toBe(201);
    const row = await api.deps.db.call.findUniqueOrThrow({ where: { id: res.json.call_id as string } });
    expect(row.varsProvided).toEqual({ patient: 'Omer', clinic: 'Smile' });
  });

  it('rejects bad numbers, foreign numbers and agents, and writes nothing', async () => {
    const before = await api.deps.db.call.count();
    const e164 = /must be a valid phone number in E\.164 format/;
    const cases: [unknown, number, RegExp | string][] = [
      [
        { from_number: '14155550100', to_number: '+14155550199' },
        400,
        /^from_number must be a valid phone number in E\.164/,
      ],
      [
        { from_number: '+14155550100', to_number: '+1415555019a' },
        400,
        /^to_number must be a valid phone number in E\.164/,
      ],
      [{ from_number: '+14155550100', to_number: '+1415555019912345' }, 400, e164],
      [{ from_number: '+14155550100', to_number: '+1 415 555 0199' }, 400, e164],
      [{ from_number: '+14155550100', to_number: '' }, 400, e164],
      [{ from_number: '+14155550100' }, 400, 'to_number is required'],
      [
        { from_number: '+14155550102', to_number: '+14155550199' },
        403,
        'from_number +14155550102 is not assigned to this account',
      ],
      [
        { from_number: '+14155550177', to_number: '+14155550199' },
        403,
        'from_number +14155550177 is not assigned to this account',
      ],
      [
        { from_number: '+14155550100', to_number: '+14155550199', override_agent_id: beta.agent.id },
        404,
        'Agent not found',
      ],
      [{ from_number: '+14155550101', to_number: '+14155550199' }, 400, /has no agent assigned/],
      [
        { from_number: '+14155550100', to_number: '+14155550199', vars_provided: { a: { nested: 1 } } },
        400,
        /^vars_provided\.a: /,
      ],
    ];
    for (const [body, status, message] of cases) {
      const res = await dial(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(keysOf(res.json)).toEqual(['error']);
      expect(res.json.error).toMatch(message);
    }
    expect(await api.deps.db.call.count()).toBe(before);
  });

  it('honours Idempotency-Key: replay, 422 on a different body, scoped by account', async () => {
    const key = `dial-${randomUUID()}`;
    const body = { from_number: '+14155550100', to_number: '+14155550198' };
    const first = await dial(body, { headers: { 'idempotency-key': key } });
    const again = await dial(body, { headers: { 'idempotency-key': key } });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.json).toEqual(first.json);
    expect(await api.deps.db.call.count({ where: { toNumber: '+14155550198' } })).toBe(1);

    const different = await dial(
      { ...body, to_number: '+14155550197' },
      { headers: { 'idempotency-key': key } },
    );
    expect(different.status).toBe(422);
    expect(different.json).toEqual({ error: 'Idempotency-Key was already used with a different request' });

    const otherAccount = await dial(
      { from_number: '+14155550102', to_number: '+14155550198' },
      { key: beta.key, headers: { 'idempotency-key': key } },
    );
    expect(otherAccount.status).toBe(201);
  });

  it('answers 409 while the first request with a key is still running', async () => {
    const key = `busy-${randomUUID()}`;
    await api.deps.db.idempotencyKey.create({
      data: {
        accountId: alpha.account.id,
        key,
        operation: 'call-dial',
        requestHash: 'x',
        expiresAt: new Date(Date.now() + 60_000),
      },
    });
    const res = await dial(
      { from_number: '+14155550100', to_number: '+14155550196' },
      { headers: { 'idempotency-key': key } },
    );
    expect(res.status).toBe(409);
  });
});

describe('web-call-create (extension)', () => {
  const create = (body: unknown, key = alpha.key) =>
    http(`${api.url}/functions/v1/web-call-create`, { method: 'POST', key, body });

  it('answers 201 with the call and an access token for it alone; the call is a web call without numbers', async () => {
    const res = await create({
      agent_id: alpha.agent.id,
      vars_provided: { patient: 'Dana' },
      metadata: { page: 'demo' },
    });
    expect(res.status).toBe(201);
    expect(keysOf(res.json)).toEqual(['access_token', 'agent_id', 'call_id', 'call_status', 'call_type']);
    expect(res.json).toMatchObject({
      call_type: 'web_call',
      call_status: 'initiated',
      agent_id: alpha.agent.id,
    });
    const callId = res.json.call_id as string;
    expect(webCallTokens.verify(TEST_JWT_SECRET, res.json.access_token as string, new Date())).toEqual({
      callId,
    });
    const got = await http(`${api.url}/functions/v1/call-get/${callId}`, { key: alpha.key });
    expect(got.json).toMatchObject({
      call_type: 'web_call',
      call_status: 'initiated',
      direction: 'incoming',
      from_number: '',
      to_number: '',
      vars_provided: { patient: 'Dana', clinic: 'Smile' },
    });
  });

  it('hangs up a web call through call-hangup: recorded for its media server; refused once it has ended', async () => {
    const created = await create({ agent_id: alpha.agent.id });
    const callId = created.json.call_id as string;
    const hangUp = (key = alpha.key) =>
      http(`${api.url}/functions/v1/call-hangup/${callId}`, { method: 'POST', key });
    expect((await hangUp(beta.key)).status).toBe(404);
    const res = await hangUp();
    expect([res.status, res.json]).toEqual([200, { call_id: callId, call_status: 'initiated' }]);
    const requested = await api.deps.db.call.findUniqueOrThrow({ where: { id: callId } });
    expect(requested.hangupRequestedAt).not.toBeNull();
    // Asked again before it has ended: the same request, unchanged.
    expect((await hangUp()).status).toBe(200);
    expect((await api.deps.db.call.findUniqueOrThrow({ where: { id: callId } })).hangupRequestedAt).toEqual(
      requested.hangupRequestedAt,
    );
    // Its conversation over (the media server stored it): nothing is left to hang up.
    await api.deps.db.call.update({ where: { id: callId }, data: { conversationEndedAt: new Date() } });
    const ended = await hangUp();
    expect(ended.status).toBe(409);
    expect(ended.json.error).toMatch(/already ended/);
  });

  it('rejects a bad or foreign agent and bad metadata, and writes nothing', async () => {
    const before = await api.deps.db.call.count();
    const cases: [unknown, number, RegExp | string][] = [
      [{}, 400, 'agent_id is required'],
      [{ agent_id: 'nope' }, 404, 'Agent not found'],
      [{ agent_id: beta.agent.id }, 404, 'Agent not found'],
      [{ agent_id: alpha.agent.id, metadata: 'x' }, 400, /^metadata/],
      [{ agent_id: alpha.agent.id, metadata: { blob: 'x'.repeat(60_000) } }, 400, /at most 50 KB/],
    ];
    for (const [body, status, message] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect(keysOf(res.json)).toEqual(['error']);
      expect(res.json.error).toMatch(message);
    }
    expect(await api.deps.db.call.count()).toBe(before);
  });
});

describe('reading calls', () => {
  let callId: string;
  let failedId: string;
  beforeAll(async () => {
    callId = (
      await dial({
        from_number: '+14155550100',
        to_number: '+14155550009',
        vars_provided: { patient: 'Tamar' },
      })
    ).json.call_id as string;
    expect(await complete(callId)).toBe('ended');
    failedId = (await dial({ from_number: '+14155550100', to_number: '+14155550001' })).json
      .call_id as string;
    expect(await complete(failedId)).toBe('busy');
  });

  it('call-get returns exactly the full call object', async () => {
    const res = await http(`${api.url}/functions/v1/call-get/${callId}`, { key: alpha.key });
    expect(res.status).toBe(200);
    expect(keysOf(res.json)).toEqual(FULL);
    expect(() => FullCall.strict().parse(res.json)).not.toThrow();
    expect(res.json).toMatchObject({
      call_status: 'ended',
      disconnection_reason: null,
      agent: { name: 'Alpha agent', version: 1 },
    });
    expect(
      (res.json.transcript as Json[]).every((entry) => keysOf(entry).join() === 'content,role,timestamp_ms'),
    ).toBe(true);

    const busy = await http(`${api.url}/functions/v1/call-get/${failedId}`, { key: alpha.key });
    expect(busy.json).toMatchObject({
      call_status: 'busy',
      disconnection_reason: 'busy',
      duration_ms: 0,
      recording_url: null,
      transcript: [],
    });

    for (const id of [randomUUID(), 'nope']) {
      const missing = await http(`${api.url}/functions/v1/call-get/${id}`, { key: alpha.key });
      expect([missing.status, missing.json]).toEqual([404, { error: 'Call not found' }]);
    }
    const foreign = await http(`${api.url}/functions/v1/call-get/${callId}`, { key: beta.key });
    expect([foreign.status, foreign.json]).toEqual([404, { error: 'Call not found' }]);
  });

  it('serves the recording as a WAV file behind a signed URL, refusing tampered and expired links', async () => {
    const call = (await http(`${api.url}/functions/v1/call-get/${callId}`, { key: alpha.key })).json;
    const url = call.recording_url as string;
    expect(url.startsWith(`${api.url}/recordings/${callId}?`)).toBe(true);
    const audio = await fetch(url);
    expect(audio.status).toBe(200);
    expect(audio.headers.get('content-type')).toBe('audio/wav');
    const bytes = Buffer.from(await audio.arrayBuffer());
    expect(bytes.subarray(0, 4).toString()).toBe('RIFF');
    expect(bytes.subarray(8, 12).toString()).toBe('WAVE');
    expect(bytes.length).toBe(44 + Math.floor(((call.duration_ms as number) / 1000) * 8000) * 2);

    const signature = new URL(url).searchParams.get('signature')!;
    const tampered = await fetch(
      url.replace(signature, `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`),
    );
    expect(tampered.status).toBe(403);
    const row = await api.deps.db.call.findUniqueOrThrow({ where: { id: callId }, include: callInclude });
    const expired = signedRecordingUrl(api.deps.config, row, new Date(Date.now() - 3_601_000))!;
    expect((await fetch(expired)).status).toBe(403);
    const otherCall = await fetch(url.replace(callId, failedId));
    expect(otherCall.status).toBe(403);
  });

  it('older get-call, list-calls and update-call have their exact shapes', async () => {
    const older = await http(`${api.url}/v1/get-call/${callId}`, { key: alpha.key });
    expect(keysOf(older.json)).toEqual(OLDER_FULL);
    expect(() => OlderFullCall.strict().parse(older.json)).not.toThrow();
    expect(older.json).toMatchObject({
      agent: { id: alpha.agent.id, name: 'Alpha agent', version: 1 },
      account: { id: alpha.account.id, name: 'Alpha' },
      metadata: null,
    });
    // Stored when the call ended: the simulated call's carrier minutes at the default rates.
    const { cost } = await api.deps.db.call.findUniqueOrThrow({ where: { id: callId } });
    expect(older.json.call_cost).toEqual({
      combined_cost: (cost as { combined_cost: number }).combined_cost,
      currency: 'USD',
    });
    expect((older.json.call_cost as { combined_cost: number }).combined_cost).toBeGreaterThan(0);
    expect(older.json.end_timestamp).toBeGreaterThanOrEqual(
      (older.json.start_timestamp as number) + (older.json.duration_ms as number),
    );

    const list = await http(`${api.url}/v1/list-calls`, {
      method: 'POST',
      key: alpha.key,
      body: { limit: 5 },
    });
    expect(Array.isArray(list.json)).toBe(true);
    for (const item of list.json as unknown as Json[]) {
      expect(keysOf(item)).toEqual(OLDER_LIGHT);
      expect(() => OlderLightweightCall.strict().parse(item)).not.toThrow();
    }

    const updated = await http(`${api.url}/v1/update-call/${callId}`, {
      method: 'PATCH',
      key: alpha.key,
      body: { metadata: { crm_id: 'A-17', tags: ['vip'] } },
    });
    expect(updated.status).toBe(200);
    expect(keysOf(updated.json)).toEqual(OLDER_FULL);
    expect(() => OlderFullCall.strict().parse(updated.json)).not.toThrow();
    expect(updated.json.metadata).toEqual({ crm_id: 'A-17', tags: ['vip'] });
    expect(updated.json.end_timestamp).toBe(older.json.end_timestamp);
    // What update-call wrote is read back by get-call.
    const reread = await http(`${api.url}/v1/get-call/${callId}`, { key: alpha.key });
    expect(reread.json).toEqual({ ...updated.json, recording_url: reread.json.recording_url });

    for (const body of [
      {},
      { metadata: [1] },
      { metadata: 'x' },
      { metadata: { big: 'x'.repeat(51 * 1024) } },
    ]) {
      const res = await http(`${api.url}/v1/update-call/${callId}`, {
        method: 'PATCH',
        key: alpha.key,
        body,
      });
      expect(res.status, JSON.stringify(body).slice(0, 40)).toBe(400);
      expect(keysOf(res.json)).toEqual(['error']);
    }
    const row = await api.deps.db.call.findUniqueOrThrow({ where: { id: callId } });
    expect(row.metadata).toEqual({ crm_id: 'A-17', tags: ['vip'] });
  });
});

describe('call-list', () => {
  let gamma: Awaited<ReturnType<typeof seedAccount>>;
  let otherAgentId: string;
  const T0 = Date.UTC(2026, 0, 1);
  const statuses = ['ended', 'busy', 'no_answer', 'error', 'user_hangup', 'agent_hangup', 'ongoing'] as const;

  beforeAll(async () => {
    gamma = await seedAccount(api.deps, 'Gamma', ['+14155550103']);
    otherAgentId = (
      await api.deps.db.agent.create({
        data: { accountId: gamma.account.id, name: 'Second', voiceId: 'he-ori' },
      })
    ).id;
    await api.deps.db.call.createMany({
      data: Array.from({ length: 42 }, (_, i) => ({
        id: randomUUID(),
        accountId: gamma.account.id,
        agentId: i % 3 === 0 ? otherAgentId : gamma.agent.id,
        agentVersion: 1,
        fromNumber: '+14155550103',
        toNumber: `+141555511${String(i).padStart(2, '0')}`,
        status: statuses[i % statuses.length]!,
        direction: i % 5 === 0 ? ('incoming' as const) : ('outgoing' as const),
        isTestCall: i % 7 === 0,
        summary: `summary ${i}`,
        // Two calls share each start time, so paging must break ties by id.
        createdAt: new Date(T0 + Math.floor(i / 2) * 60_000),
        workflowStartedAt: new Date(T0),
      })),
    });
  });

  const list = (body: unknown) =>
    http(`${api.url}/functions/v1/call-list`, { method: 'POST', key: gamma.key, body });
  const ids = (res: Awaited<ReturnType<typeof list>>) =>
    (res.json.calls as Json[]).map((c) => c.call_id as string);

  it('lists lightweight calls, newest first by default, without test calls or summaries', async () => {
    const res = await list({});
    expect(res.status).toBe(200);
    expect(keysOf(res.json)).toEqual(['calls', 'total_count']);
    expect(res.json.total_count).toBe(36);
    const calls = res.json.calls as Json[];
    expect(calls).toHaveLength(36);
    for (const call of calls) {
      expect(keysOf(call)).toEqual(LIGHT);
      expect(() => LightweightCall.strict().parse(call)).not.toThrow();
      expect(call.is_test_call).toBe(false);
    }
    const starts = calls.map((c) => c.start_timestamp as number);
    expect(starts).toEqual([...starts].sort((a, b) => b - a));
    const ascending = await list({ sort_order: 'ascending' });
    expect(ids(ascending)).toEqual([...ids(res)].reverse());
    expect((await list({ filter_criteria: { include_summary: true } })).json.calls).toEqual(
      calls.map((call) =>
        expect.objectContaining({ ...call, summary: expect.stringMatching(/^summary \d+$/) }),
      ),
    );
  });

  it('applies every filter and counts all matches independently of paging', async () => {
    const expectCount = async (filter_criteria: Json, expected: number) => {
      const res = await list({ filter_criteria, limit: 1 });
      expect(res.json.total_count, JSON.stringify(filter_criteria)).toBe(expected);
    };
    const all = Array.from({ length: 42 }, (_, i) => i);
    const count = (pred: (i: number) => boolean) => all.filter((i) => pred(i)).length;
    await expectCount({ include_test_calls: true }, 42);
    await expectCount(
      { agent_id: [otherAgentId] },
      count((i) => i % 3 === 0 && i % 7 !== 0),
    );
    await expectCount(
      { call_status: ['busy', 'no_answer'] },
      count((i) => [1, 2].includes(i % 7) && i % 7 !== 0),
    );
    await expectCount(
      { direction: ['incoming'], include_test_calls: true },
      count((i) => i % 5 === 0),
    );
    await expectCount(
      {
        start_timestamp: { lower_threshold: T0 + 5 * 60_000, upper_threshold: T0 + 10 * 60_000 },
        include_test_calls: true,
      },
      12,
    );
    await expectCount(
      { start_timestamp: { lower_threshold: T0 + 20 * 60_000 }, include_test_calls: true },
      2,
    );
    await expectCount({ agent_id: [alpha.agent.id] }, 0);
  });

  it('filters by campaign, disconnection reason and number (whole or prefix), counted from the calls', async () => {
    const campaign = await api.deps.db.campaign.create({
      data: {
        accountId: gamma.account.id,
        agentId: gamma.agent.id,
        id: randomUUID(),
        name: 'Filtered',
        status: 'completed',
        fromNumbers: ['+14155550103'],
        timezone: 'UTC',
        maxConcurrentCalls: 1,
        maxAttempts: 1,
        retryDelaySeconds: 60,
      },
    });
    // Calls 0..9 are the campaign's; every third one was not answered.
    const rows = await api.deps.db.call.findMany({
      where: { accountId: gamma.account.id },
      orderBy: { toNumber: 'asc' },
      select: { id: true },
    });
    await api.deps.db.call.updateMany({
      where: { id: { in: rows.slice(0, 10).map((r) => r.id) } },
      data: { campaignId: campaign.id },
    });
    await api.deps.db.call.updateMany({
      where: { id: { in: rows.filter((_, i) => i % 3 === 0).map((r) => r.id) } },
      data: { disconnectionReason: 'no_answer' },
    });
    const all = Array.from({ length: 42 }, (_, i) => i);
    const count = (pred: (i: number) => boolean) => all.filter((i) => pred(i)).length;
    const expectCount = async (filter_criteria: Json, expected: number) => {
      const res = await list({ filter_criteria: { include_test_calls: true, ...filter_criteria }, limit: 3 });
      expect(res.status, res.text).toBe(200);
      expect(res.json.total_count, JSON.stringify(filter_criteria)).toBe(expected);
      expect(ids(res)).toHaveLength(Math.min(3, expected));
    };
    await expectCount({ campaign_id: [campaign.id] }, 10);
    await expectCount(
      { disconnection_reason: ['no_answer'] },
      count((i) => i % 3 === 0),
    );
    await expectCount(
      { campaign_id: [campaign.id], disconnection_reason: ['no_answer'] },
      count((i) => i < 10 && i % 3 === 0),
    );
    await expectCount({ to_number: { value: '+14155551107' } }, 1);
    await expectCount({ to_number: { value: '+1415555110', match: 'prefix' } }, 10);
    await expectCount({ to_number: { value: '+141555511', match: 'prefix' } }, 42);
    await expectCount(
      { from_number: { value: '+14155550103' }, to_number: { value: '+1650', match: 'prefix' } },
      0,
    );
    await expectCount({ campaign_id: [randomUUID()] }, 0);
    const bad = await list({ filter_criteria: { to_number: { value: '+1415%', match: 'prefix' } } });
    expect([bad.status, bad.json.error]).toEqual([
      400,
      'filter_criteria.to_number.value: must be a plus sign and 1 to 15 digits, e.g. +1415',
    ]);
  });

  it("exports a filter's calls as CSV, line for line the list's, and resumes after a pagination key", async () => {
    const exportCsv = (body: unknown) =>
      http(`${api.url}/functions/v1/call-export`, { method: 'POST', key: gamma.key, body });
    const filter_criteria = { direction: ['outgoing'], include_test_calls: true, include_summary: true };
    const res = await exportCsv({ filter_criteria, limit: 1 });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const [header, ...lines] = res.text.trimEnd().split('\n');
    expect(header).toBe(
      'call_id,start_time,call_type,direction,from_number,to_number,agent_name,agent_version,call_status,disconnection_reason,duration_seconds,is_test_call,summary',
    );
    const listed = await list({ filter_criteria, limit: 1000 });
    expect(lines).toHaveLength(listed.json.total_count as number);
    expect(lines.map((line) => line.split(',')[0])).toEqual(ids(listed));
    const first = (listed.json.calls as Json[])[0]!;
    expect(lines[0]).toBe(
      [
        first.call_id,
        new Date(first.start_timestamp as number).toISOString(),
        'phone_call',
        'outgoing',
        first.from_number,
        first.to_number,
        (first.agent as Json).name,
        1,
        first.call_status,
        first.disconnection_reason ?? '',
        '0.0',
        first.is_test_call,
        first.summary,
      ].join(','),
    );
    const rest = await exportCsv({ filter_criteria, pagination_key: ids(listed)[4] });
    expect(rest.text.trimEnd().split('\n').slice(1)).toEqual(lines.slice(5));
    // The dashboard downloads it with its session cookie and the session's CSRF token.
    const email = `export-${randomUUID()}@gamma.example`;
    await createUser(api.deps, { accountId: gamma.account.id, email, password: 'correct horse battery' });
    const { token, session } = await signIn(api.deps, { email, password: 'correct horse battery' });
    const bySession = (headers: Record<string, string>) =>
      http(`${api.url}/functions/v1/call-export`, {
        method: 'POST',
        body: { filter_criteria },
        headers: { cookie: `${SESSION_COOKIE}=${token}`, ...headers },
      });
    const downloaded = await bySession({ [CSRF_HEADER]: session.csrf_token });
    expect([downloaded.status, downloaded.text]).toEqual([200, res.text]);
    const forged = await bySession({});
    expect([forged.status, forged.json]).toEqual([403, { error: 'Missing or invalid CSRF token' }]);
    const listedBySession = await http(`${api.url}/functions/v1/call-list`, {
      method: 'POST',
      body: {},
      headers: { cookie: `${SESSION_COOKIE}=${token}`, [CSRF_HEADER]: session.csrf_token },
    });
    expect(listedBySession.status, 'other REST operations take API keys only').toBe(401);

    const refused = await exportCsv({ filter_criteria: { agent_id: ['x'] } });
    expect([refused.status, refused.json.error]).toEqual([
      400,
      'filter_criteria.agent_id[0]: must be a UUID',
    ]);
  });

  it('streams an export of 100,000 calls, every one once', async () => {
    const big = await seedAccount(api.deps, 'Big', ['+14155550104']);
    await api.deps.db.$executeRaw`
      INSERT INTO calls (id, account_id, agent_id, agent_version, from_number, to_number, status, created_at,
                         workflow_started_at)
      SELECT gen_random_uuid(), ${big.account.id}::uuid, ${big.agent.id}::uuid, 1, '+14155550104',
             '+1650' || lpad(n::text, 7, '0'), 'ended', ${new Date(T0)}::timestamptz + n * interval '1 second',
             ${new Date(T0)}::timestamptz
        FROM generate_series(1, 100000) AS n`;
    const started = Date.now();
    const response = await fetch(`${api.url}/functions/v1/call-export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${big.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ sort_order: 'ascending' }),
    });
    expect(response.status).toBe(200);
    // Read as it comes: chunk by chunk, never the whole body held as one string by the server.
    let chunks = 0;
    let lines = 0;
    let tail = '';
    const seen = new Set<string>();
    for await (const chunk of response.body!) {
      chunks += 1;
      const text = tail + Buffer.from(chunk as Uint8Array).toString('utf8');
      const parts = text.split('\n');
      tail = parts.pop()!;
      for (const part of parts) {
        lines += 1;
        seen.add(part.slice(0, 36));
      }
    }
    expect(tail).toBe('');
    expect(lines).toBe(100_001);
    expect(seen.size).toBe(100_001);
    expect(chunks).toBeGreaterThan(1);
    console.log(`exported 100,000 calls in ${Date.now() - started} ms, ${chunks} chunks`);
  }, 120_000);

  it('pages through every call exactly once in both orders, with an exclusive key', async () => {
    for (const sort_order of ['descending', 'ascending']) {
      const seen: string[] = [];
      let pagination_key: string | undefined;
      for (let pageNo = 0; pageNo < 20; pageNo += 1) {
        const res = await list({
          sort_order,
          limit: 5,
          pagination_key,
          filter_criteria: { include_test_calls: true },
        });
        expect(res.json.total_count).toBe(42);
        const page = ids(res);
        seen.push(...page);
        if (page.length < 5) break;
        pagination_key = page.at(-1);
      }
      expect(seen).toHaveLength(42);
      expect(new Set(seen).size).toBe(42);
    }
  });

  it('enforces limits 1..1000 and rejects bad filter values with 400 {error}', async () => {
    expect(ids(await list({ limit: 1 }))).toHaveLength(1);
    expect(ids(await list({ limit: 1000 }))).toHaveLength(36);
    const bad: [Json, RegExp][] = [
      [{ limit: 0 }, /^limit: must be at least 1$/],
      [{ limit: 1001 }, /^limit: must be at most 1000$/],
      [{ limit: 2.5 }, /^limit: must be an integer$/],
      [{ sort_order: 'sideways' }, /^sort_order: /],
      [{ filter_criteria: { call_status: ['flying'] } }, /^filter_criteria\.call_status\[0\]: /],
      [{ filter_criteria: { agent_id: ['x'] } }, /^filter_criteria\.agent_id\[0\]: must be a UUID$/],
      [{ filter_criteria: { direction: 'incoming' } }, /^filter_criteria\.direction: /],
      [
        { filter_criteria: { start_timestamp: { lower_threshold: 'yesterday' } } },
        /^filter_criteria\.start_timestamp\.lower_threshold: /,
      ],
      [{ pagination_key: randomUUID() }, /^pagination_key must be a call_id from the previous page$/],
    ];
    for (const [body, message] of bad) {
      const res = await list(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(keysOf(res.json)).toEqual(['error']);
      expect(res.json.error).toMatch(message);
    }
  });
});

describe('test contacts and soft deletion (tRPC)', () => {
  it('marks calls to test contacts and leaves them out of lists by default', async () => {
    await addTestContact(api.deps, { accountId: alpha.account.id, phone_number: '+14155550150' });
    const res = await dial({ from_number: '+14155550100', to_number: '+14155550150' });
    const get = await http(`${api.url}/functions/v1/call-get/${res.json.call_id as string}`, {
      key: alpha.key,
    });
    expect(get.json.is_test_call).toBe(true);
    const listed = await http(`${api.url}/functions/v1/call-list`, {
      method: 'POST',
      key: alpha.key,
      body: { limit: 1000 },
    });
    expect(JSON.stringify(listed.json)).not.toContain(res.json.call_id as string);
    const withTests = await http(`${api.url}/functions/v1/call-list`, {
      method: 'POST',
      key: alpha.key,
      body: { limit: 1000, filter_criteria: { include_test_calls: true } },
    });
    expect(JSON.stringify(withTests.json)).toContain(res.json.call_id as string);
  });

  it('lets dashboard users delete calls; deleted calls vanish from gets, lists and counts', async () => {
    const callId = (await dial({ from_number: '+14155550100', to_number: '+14155550140' })).json
      .call_id as string;
    const countBefore = (
      await http(`${api.url}/functions/v1/call-list`, { method: 'POST', key: alpha.key, body: {} })
    ).json.total_count as number;

    const withKey = createCaller({ deps: api.deps, requestId: 't', authorization: `Bearer ${alpha.key}` });
    await expect(withKey.calls.delete({ call_id: callId })).rejects.toMatchObject({ code: 'FORBIDDEN' });

    const user = await createUser(api.deps, {
      accountId: alpha.account.id,
      email: `ops-${randomUUID()}@alpha.example`,
    });
    const token = await signUserToken(TEST_JWT_SECRET, { userId: user.id, accountId: alpha.account.id });
    const dashboard = createCaller({ deps: api.deps, requestId: 't', authorization: `Bearer ${token}` });
    expect(await dashboard.calls.delete({ call_id: callId })).toEqual({ deleted: true });

    expect((await http(`${api.url}/functions/v1/call-get/${callId}`, { key: alpha.key })).status).toBe(404);
    expect((await http(`${api.url}/v1/get-call/${callId}`, { key: alpha.key })).status).toBe(404);
    const after = await http(`${api.url}/functions/v1/call-list`, {
      method: 'POST',
      key: alpha.key,
      body: { limit: 1000 },
    });
    expect(after.json.total_count).toBe(countBefore - 1);
    expect(JSON.stringify(after.json)).not.toContain(callId);
  });
});
