import { createConfig, lintFromString } from '@redocly/openapi-core';
import { revokeApiKey } from '@voice/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, seedAccount, startTestApi, type TestApi } from '../../test/harness';
import { REMOVED_OPERATIONS } from './route';

const PHONE_NUMBER_FIELDS = [
  'account_id',
  'account_name',
  'agent_id',
  'agent_name',
  'agent_version',
  'created_at',
  'display_name',
  'phone_number',
  'phone_number_id',
  'phone_number_pretty',
  'status',
];

let api: TestApi;
let a: Awaited<ReturnType<typeof seedAccount>>;
let b: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  api = await startTestApi();
  a = await seedAccount(api.deps, 'Alpha', ['+14155550100', '+14155550101']);
  b = await seedAccount(api.deps, 'Beta', ['+14155550102']);
});
afterAll(() => api.close());

describe('phone numbers', () => {
  it("lists exactly the account's numbers in the spec's shape", async () => {
    const res = await http(`${api.url}/v1/list-phone-numbers`, { key: a.key });
    expect(res.status).toBe(200);
    expect(res.json).toHaveLength(2);
    const [first, second] = res.json as unknown as Record<string, unknown>[];
    expect(Object.keys(first!).sort()).toEqual(PHONE_NUMBER_FIELDS);
    expect(first).toMatchObject({
      phone_number: '+14155550100',
      phone_number_pretty: '+1 415 555 0100',
      account_id: a.account.id,
      account_name: 'Alpha',
      agent_id: a.agent.id,
      agent_name: 'Alpha agent',
      agent_version: 1,
      status: 'active',
      display_name: null,
    });
    expect(second).toMatchObject({
      phone_number: '+14155550101',
      status: 'unassigned',
      agent_id: null,
      agent_name: null,
      agent_version: null,
    });
    expect(new Date(first!.created_at as string).toISOString()).toBe(first!.created_at);
  });

  it('gets one number by its URL-encoded E.164 form', async () => {
    const res = await http(`${api.url}/v1/get-phone-number/%2B14155550100`, { key: a.key });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ phone_number: '+14155550100', account_id: a.account.id });
  });

  it("isolates accounts: another account's number is 404, and lists never mix", async () => {
    const other = await http(`${api.url}/v1/get-phone-number/%2B14155550102`, { key: a.key });
    expect(other.status).toBe(404);
    expect(other.json).toEqual({ error: 'Phone number not found' });

    const unknown = await http(`${api.url}/v1/get-phone-number/%2B14155559999`, { key: a.key });
    expect(unknown.status).toBe(404);

    const listB = await http(`${api.url}/v1/list-phone-numbers`, { key: b.key });
    expect((listB.json as unknown as { phone_number: string }[]).map((n) => n.phone_number)).toEqual([
      '+14155550102',
    ]);
  });

  it('adds, assigns, releases and adds again over the management extension, with clear refusals', async () => {
    const number = '+14155550177';
    const path = `%2B${number.slice(1)}`;
    const added = await http(`${api.url}/functions/v1/phone-number-add`, {
      method: 'POST',
      key: a.key,
      body: { phone_number: number, display_name: 'Front desk' },
    });
    expect(added.status, added.text).toBe(201);
    expect(Object.keys(added.json!).sort()).toEqual(PHONE_NUMBER_FIELDS);
    expect(added.json).toMatchObject({
      phone_number: number,
      display_name: 'Front desk',
      status: 'unassigned',
    });

    const again = await http(`${api.url}/functions/v1/phone-number-add`, {
      method: 'POST',
      key: b.key,
      body: { phone_number: number },
    });
    expect([again.status, again.json]).toEqual([
      409,
      { error: `Phone number ${number} is already registered` },
    ]);
    const invalid = await http(`${api.url}/functions/v1/phone-number-add`, {
      method: 'POST',
      key: a.key,
      body: { phone_number: '0501234567' },
    });
    expect(invalid.status).toBe(400);

    const assigned = await http(`${api.url}/functions/v1/phone-number-assign/${path}`, {
      method: 'PATCH',
      key: a.key,
      body: { agent_id: a.agent.id },
    });
    expect(assigned.status, assigned.text).toBe(200);
    expect(assigned.json).toMatchObject({ agent_id: a.agent.id, status: 'active' });

    const dialed = await http(`${api.url}/functions/v1/call-dial`, {
      method: 'POST',
      key: a.key,
      body: { from_number: number, to_number: '+14155559911' },
    });
    expect(dialed.status, dialed.text).toBe(201);
    const busy = await http(`${api.url}/functions/v1/phone-number-release/${path}`, {
      method: 'DELETE',
      key: a.key,
    });
    expect([busy.status, busy.json]).toEqual([
      409,
      { error: `Phone number ${number} has 1 call(s) in progress; release it when they have ended` },
    ]);
    await api.deps.db.call.updateMany({ where: { fromNumber: number }, data: { status: 'ended' } });

    const released = await http(`${api.url}/functions/v1/phone-number-release/${path}`, {
      method: 'DELETE',
      key: a.key,
    });
    expect([released.status, released.json]).toEqual([200, { phone_number: number, released: true }]);
    const gone = await http(`${api.url}/v1/get-phone-number/${path}`, { key: a.key });
    expect(gone.status).toBe(404);
    const twice = await http(`${api.url}/functions/v1/phone-number-release/${path}`, {
      method: 'DELETE',
      key: a.key,
    });
    expect([twice.status, twice.json]).toEqual([404, { error: 'Phone number not found' }]);
    const readded = await http(`${api.url}/functions/v1/phone-number-add`, {
      method: 'POST',
      key: b.key,
      body: { phone_number: number },
    });
    expect(readded.status).toBe(201);
  });
});

describe('voices', () => {
  it('serves the catalog of 20 voices in the older shape', async () => {
    const res = await http(`${api.url}/v1/list-voices`, { key: a.key });
    expect(res.status).toBe(200);
    const voices = (res.json as unknown as { voices: Record<string, unknown>[] }).voices;
    expect(voices).toHaveLength(20);
    for (const voice of voices) {
      expect(Object.keys(voice).sort()).toEqual([
        'display_name',
        'gender',
        'id',
        'language',
        'model',
        'provider',
        'provider_id',
      ]);
    }
    expect(voices.map((v) => v.display_name)).toEqual(
      expect.arrayContaining(['Ori', 'Keren', 'Sapir', 'Steve', 'David']),
    );
  });
});

describe('authentication', () => {
  it('answers 401 with WWW-Authenticate for a missing, malformed, wrong or revoked credential', async () => {
    // Revoked through the service, which forgets the key in this process at once; other processes hear
    // of it from the database (auth-cache.test.ts), which a direct update here would race.
    const revoked = await api.deps.db.apiKey.findFirstOrThrow({ where: { accountId: b.account.id } });
    await revokeApiKey(api.deps, { accountId: b.account.id, apiKeyId: revoked.id });
    const cases: Record<string, string | undefined> = {
      missing: undefined,
      malformed: 'Token abc',
      wrong: 'Bearer vk_live_0000000000000000000000000000000000000000',
      revoked: `Bearer ${b.key}`,
      garbageJwt: 'Bearer aaa.bbb.ccc',
    };
    for (const [name, authorization] of Object.entries(cases)) {
      const res = await http(`${api.url}/v1/list-phone-numbers`, {
        headers: authorization ? { authorization } : {},
      });
      expect(res.status, name).toBe(401);
      expect(res.json, name).toEqual({ error: 'Unauthorized' });
      expect(res.headers.get('www-authenticate'), name).toBe('Bearer');
    }
  });
});

describe('HTTP surface', () => {
  it('answers 404 for the removed operations, with or without credentials', async () => {
    for (const { method, path } of REMOVED_OPERATIONS) {
      const url = `${api.url}${path.replace('{call_id}', '00000000-0000-4000-8000-000000000000')}`;
      for (const key of [a.key, undefined]) {
        const res = await http(url, { method, key, body: method === 'POST' ? { call_ids: [] } : undefined });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.json).toEqual({ error: 'Not found' });
      }
    }
  });

  it('answers 404 for unknown paths', async () => {
    const res = await http(`${api.url}/v1/no-such-operation`, { key: a.key });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: 'Not found' });
  });

  it('puts x-request-id on every response, echoing a safe incoming one', async () => {
    const generated = await http(`${api.url}/v1/list-voices`);
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await http(`${api.url}/nowhere`, { headers: { 'x-request-id': 'trace-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-123');
    const unsafe = await http(`${api.url}/healthz`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('logs structured JSON with the request id and never the credential', async () => {
    await http(`${api.url}/v1/list-phone-numbers`, {
      key: a.key,
      headers: { 'x-request-id': 'log-check-1' },
    });
    const lines = api.logs.filter((line) => line.reqId === 'log-check-1');
    expect(lines.length).toBeGreaterThan(0);
    expect(JSON.stringify(api.logs)).not.toContain(a.key);
  });

  it('serves an OpenAPI document generated from the route table', async () => {
    const res = await http(`${api.url}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = res.json as unknown as {
      openapi: string;
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/v1/get-phone-number/{phone_number}']?.get?.operationId).toBe('getPhoneNumber');
    expect(doc.paths['/v1/list-voices']?.get?.operationId).toBe('listVoices');
    const create = doc.paths['/functions/v1/agent-create']?.post as unknown as {
      responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
    };
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '500']));
    expect(create.responses['400']?.content?.['application/json']?.schema.$ref).toBe(
      '#/components/schemas/StatusError',
    );
    for (const path of [
      '/functions/v1/agent-list',
      '/functions/v1/agent-get/{agent_id}',
      '/v1/get-agent/{agent_id}',
      '/v1/list-agents',
    ]) {
      expect(doc.paths[path]?.get, path).toBeDefined();
    }
    expect(doc.paths['/functions/v1/agent-modify/{agent_id}']?.patch).toBeDefined();
    expect(doc.paths['/v1/duplicate-agent/{agent_id}']?.post).toBeDefined();
  });

  it('passes redocly lint (recommended rules) without errors or schema warnings', async () => {
    const res = await http(`${api.url}/openapi.json`);
    const problems = await lintFromString({
      source: res.text,
      absoluteRef: 'openapi.json',
      config: await createConfig({ extends: ['recommended'] }),
    });
    const found = problems.map(
      ({ ruleId, severity, location }) => `${severity} ${ruleId} ${location[0]?.pointer}`,
    );
    // The one warning left: the document names no license.
    expect(found.filter((problem) => !problem.includes('info-license'))).toEqual([]);
  });

  it('reports health of the database and Temporal', async () => {
    const res = await http(`${api.url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ok', checks: { database: 'ok', temporal: 'ok' } });
  });

  it('exposes Prometheus metrics labelled by route template, not by raw path', async () => {
    await http(`${api.url}/v1/get-phone-number/%2B14155550100`, { key: a.key });
    const res = await http(`${api.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(res.text).toMatch(
      /http_requests_total\{method="GET",route="\/v1\/get-phone-number\/:phone_number",status="200"\} \d+/,
    );
    expect(res.text).not.toContain('+14155550100');
  });
});
