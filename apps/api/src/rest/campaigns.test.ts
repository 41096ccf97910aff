import { Campaign } from '@voice/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, seedAccount, startTestApi, type TestApi } from '../../test/harness';

let api: TestApi;
let alpha: Awaited<ReturnType<typeof seedAccount>>;
let beta: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  api = await startTestApi();
  alpha = await seedAccount(api.deps, 'Alpha', ['+14155550100', '+14155550101']);
  beta = await seedAccount(api.deps, 'Beta', ['+14155550102']);
});
afterAll(() => api.close());

const post = (path: string, body: unknown, key = alpha.key, headers: Record<string, string> = {}) =>
  http(`${api.url}/functions/v1/${path}`, { method: 'POST', key, body, headers });
const get = (path: string, key = alpha.key) => http(`${api.url}/functions/v1/${path}`, { key });

const valid = () => ({
  name: 'Renewals',
  agent_id: alpha.agent.id,
  from_numbers: ['+14155550100', '+14155550101'],
  timezone: 'America/New_York',
  schedule: { start_at: '2030-01-01T09:00:00Z' },
  calling_windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:30' }],
  max_concurrent_calls: 5,
  dials_per_minute: 30,
  retry_policy: { retry_on: ['busy', 'no_answer'], max_attempts: 2, delay_seconds: 600 },
  contacts: [
    { to_number: '+14155551001', variables: { name: 'Dana' } },
    { to_number: '+14155551002', timezone: 'Europe/Berlin' },
  ],
});

describe('campaign-create', () => {
  it('stores the campaign and its contacts and returns exactly the Campaign fields', async () => {
    const res = await post('campaign-create', valid());
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.json).sort()).toEqual(Object.keys(Campaign.shape).sort());
    expect(Campaign.strict().parse(res.json)).toMatchObject({
      name: 'Renewals',
      status: 'scheduled',
      dials_per_minute: 30,
      schedule: { start_at: '2030-01-01T09:00:00.000Z', end_at: null },
      counts: { total: 2, by_state: { queued: 2, calling: 0 }, by_outcome: {} },
    });
    const id = res.json.campaign_id as string;
    const shown = await get(`campaign-get/${id}`);
    expect([shown.status, shown.json.name]).toEqual([200, 'Renewals']);
    expect((await get(`campaign-get/${id}`, beta.key)).json).toEqual({ error: 'Campaign not found' });
    const listed = await post('campaign-list', {});
    expect((listed.json as unknown as { campaign_id: string }[]).map((c) => c.campaign_id)).toContain(id);
    expect((await post('campaign-list', {}, beta.key)).json).toEqual([]);
  });

  it('replays an Idempotency-Key and refuses it with a different body', async () => {
    const headers = { 'idempotency-key': 'campaign-once' };
    const first = await post('campaign-create', valid(), alpha.key, headers);
    const again = await post('campaign-create', valid(), alpha.key, headers);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.json.campaign_id).toBe(first.json.campaign_id);
    const other = await post('campaign-create', { ...valid(), name: 'Other' }, alpha.key, headers);
    expect(other.status).toBe(422);
  });

  const cases: [string, (body: ReturnType<typeof valid>) => unknown, string][] = [
    ['unknown agent', (b) => ({ ...b, agent_id: beta.agent.id }), 'agent_id: no agent'],
    [
      'another account’s number',
      (b) => ({ ...b, from_numbers: ['+14155550102'] }),
      'not a phone number of this account',
    ],
    ['a number that is not E.164', (b) => ({ ...b, from_numbers: ['415-555-0100'] }), 'E.164'],
    ['no numbers', (b) => ({ ...b, from_numbers: [] }), 'from_numbers: must list at least one number'],
    ['invalid timezone', (b) => ({ ...b, timezone: 'Mars/Olympus' }), 'timezone: must be an IANA timezone'],
    [
      'window end before start',
      (b) => ({ ...b, calling_windows: [{ days: ['mon'], start: '17:00', end: '09:00' }] }),
      'calling_windows[0].end: end must be after start',
    ],
    [
      'a bad day',
      (b) => ({ ...b, calling_windows: [{ days: ['funday'], start: '09:00', end: '10:00' }] }),
      'days',
    ],
    [
      'zero concurrency',
      (b) => ({ ...b, max_concurrent_calls: 0 }),
      'max_concurrent_calls: must be at least 1',
    ],
    ['zero pacing', (b) => ({ ...b, dials_per_minute: 0 }), 'dials_per_minute: must be at least 1'],
    [
      'an outcome that cannot be retried',
      (b) => ({ ...b, retry_policy: { retry_on: ['ended'] } }),
      'retry_on',
    ],
    [
      'end before start',
      (b) => ({ ...b, schedule: { start_at: '2030-01-02T00:00:00Z', end_at: '2030-01-01T00:00:00Z' } }),
      'schedule.end_at: end_at must be after start_at',
    ],
    [
      'an end in the past',
      (b) => ({ ...b, schedule: { end_at: '2020-01-01T00:00:00Z' } }),
      'must be in the future',
    ],
    [
      'a malformed contact row',
      (b) => ({ ...b, contacts: [...b.contacts, { to_number: '12' }, { phone: '+14155551003' }] }),
      'contacts: 2 invalid row(s): row 3: to_number must be a valid phone number',
    ],
    [
      'a contact with an invalid timezone',
      (b) => ({ ...b, contacts: [{ to_number: '+14155551001', timezone: 'Nowhere' }] }),
      'row 1: timezone: must be an IANA timezone',
    ],
    ['an unknown field', (b) => ({ ...b, concurrency: 3 }), 'concurrency'],
  ];
  it.each(cases)('rejects %s with a clear 400 and writes nothing', async (_name, change, message) => {
    const before = await api.deps.db.campaign.count();
    const contacts = await api.deps.db.campaignContact.count();
    const res = await post('campaign-create', change(valid()));
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toContain(message);
    expect(await api.deps.db.campaign.count()).toBe(before);
    expect(await api.deps.db.campaignContact.count()).toBe(contacts);
  });
});

describe('campaign contacts and control', () => {
  it('adds contacts with a per-row report, lists them by state, and pauses, resumes and cancels', async () => {
    const created = await post('campaign-create', { ...valid(), contacts: [], draft: true });
    expect(created.json.status).toBe('draft');
    const id = created.json.campaign_id as string;
    await post('dnc-add', { phone_numbers: ['+14155551013'], reason: 'asked' });

    const added = await post(`campaign-contacts-add/${id}`, {
      contacts: [
        { to_number: '+14155551011' },
        { to_number: 'nope' },
        { to_number: '+14155551012', variables: { plan: 'gold' } },
        { to_number: '+14155551011' },
        { to_number: '+14155551013' },
      ],
    });
    expect(added.json).toEqual({
      accepted: 3,
      skipped_dnc: 1,
      rejected: [
        { row: 2, reason: 'to_number must be a valid phone number in E.164 format, e.g. +14155550123' },
        { row: 4, reason: 'to_number +14155551011 repeats row 1' },
      ],
    });
    const again = await post(`campaign-contacts-add/${id}`, { contacts: [{ to_number: '+14155551012' }] });
    expect(again.json.rejected).toEqual([
      { row: 1, reason: 'to_number +14155551012 is already in this campaign' },
    ]);

    const listed = await post(`campaign-contacts-list/${id}`, { limit: 2 });
    const page = listed.json as unknown as {
      contacts: { position: number; state: string }[];
      next_after: number;
    };
    expect(page.contacts.map((c) => [c.position, c.state])).toEqual([
      [1, 'queued'],
      [2, 'queued'],
    ]);
    const rest = await post(`campaign-contacts-list/${id}`, { limit: 2, after: page.next_after });
    expect((rest.json.contacts as unknown[]).length).toBe(1);
    const dnc = await post(`campaign-contacts-list/${id}`, { state: 'skipped_dnc' });
    expect((dnc.json.contacts as { to_number: string }[]).map((c) => c.to_number)).toEqual(['+14155551013']);

    expect((await post(`campaign-pause/${id}`, {})).status).toBe(409); // a draft is launched by resume
    const launched = await post(`campaign-resume/${id}`, {});
    expect([launched.status, launched.json.status]).toEqual([200, 'scheduled']);
    expect((await post(`campaign-pause/${id}`, {})).json.status).toBe('paused');
    expect((await post(`campaign-resume/${id}`, {})).json.status).toBe('scheduled');
    const canceled = await post(`campaign-cancel/${id}`, {});
    expect(canceled.json.counts).toMatchObject({ by_state: { canceled: 2, skipped_dnc: 1, queued: 0 } });
    expect((await post(`campaign-cancel/${id}`, {})).status).toBe(409);
    const late = await post(`campaign-contacts-add/${id}`, { contacts: [{ to_number: '+14155551019' }] });
    expect([late.status, late.json.error]).toEqual([409, 'Campaign is canceled; it takes no more contacts']);
    expect((await post(`campaign-pause/${id}`, {}, beta.key)).json).toEqual({ error: 'Campaign not found' });
  });
});

describe('do-not-call', () => {
  it('refuses call-dial to a listed number with 403 and manages the list', async () => {
    await post('dnc-add', { phone_numbers: ['+14155551099'] });
    const dial = await post('call-dial', { from_number: '+14155550100', to_number: '+14155551099' });
    expect([dial.status, dial.json]).toEqual([
      403,
      { error: "to_number +14155551099 is on the account's do-not-call list" },
    ]);
    const listed = await post('dnc-list', {});
    expect((listed.json as unknown as { phone_number: string }[]).map((e) => e.phone_number)).toContain(
      '+14155551099',
    );
    expect((await post('dnc-list', {}, beta.key)).json).toEqual([]);
    expect((await post('dnc-add', { phone_numbers: ['+14155551099', 'x'] })).status).toBe(400);
    expect((await post('dnc-remove', { phone_number: '+14155551099' })).json).toEqual({ removed: true });
    const allowed = await post('call-dial', { from_number: '+14155550100', to_number: '+14155551099' });
    expect(allowed.status).toBe(201);
  });
});
