import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, seedAccount, startTestApi, type TestApi } from '../../test/harness';
import { restRoutes } from '../rest';
import { REMOVED_OPERATIONS } from '../rest/route';
import { BODY_LIMIT_BYTES } from '../server';

let api: TestApi;
let alpha: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  api = await startTestApi();
  alpha = await seedAccount(api.deps, 'Alpha', ['+14155550100']);
});
afterAll(() => api.close());

const countNumbers = () => api.deps.db.phoneNumber.count();
const addUrl = () => `${api.url}/trpc/phoneNumbers.add`;

describe('rejected requests write nothing', () => {
  it('malformed JSON is 400 with a clear message', async () => {
    const before = await countNumbers();
    const res = await http(addUrl(), {
      method: 'POST',
      key: alpha.key,
      rawBody: '{"phone_number": "+14155550199",',
    });
    expect(res.status).toBe(400);
    // tRPC keeps its own error envelope, so typed clients can read it.
    expect(
      (res.json as unknown as { error: { message: string; data: { code: string } } }).error,
    ).toMatchObject({
      message: 'Request body is not valid JSON',
      data: { code: 'BAD_REQUEST' },
    });
    expect(await countNumbers()).toBe(before);
  });

  it('a body over 1 MB is 413', async () => {
    const before = await countNumbers();
    const huge = JSON.stringify({ phone_number: '+14155550199', display_name: 'x'.repeat(BODY_LIMIT_BYTES) });
    const res = await http(addUrl(), { method: 'POST', key: alpha.key, rawBody: huge });
    expect(res.status).toBe(413);
    // In tRPC's shape, which its client reads, as every /trpc answer.
    expect(
      (res.json as unknown as { error: { message: string; data: { code: string; path: string } } }).error,
    ).toMatchObject({
      message: 'Request body must be at most 1 MB',
      data: { code: 'PAYLOAD_TOO_LARGE', path: 'phoneNumbers.add' },
    });
    expect(await countNumbers()).toBe(before);
  });

  it('a non-JSON content type is 415', async () => {
    const res = await http(addUrl(), {
      method: 'POST',
      key: alpha.key,
      rawBody: 'phone_number=+14155550199',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect((res.json as unknown as { error: { data: { code: string } } }).error.data.code).toBe(
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('unauthenticated and invalid writes are refused before anything is stored', async () => {
    const before = await countNumbers();
    const noKey = await http(addUrl(), { method: 'POST', body: { phone_number: '+14155550199' } });
    expect(noKey.status).toBe(401);
    const invalid = await http(addUrl(), {
      method: 'POST',
      key: alpha.key,
      body: { phone_number: '0501234567' },
    });
    expect(invalid.status).toBe(400);
    expect((invalid.json as unknown as { error: { message: string } }).error.message).toBe(
      'phone_number must be a valid phone number in E.164 format, e.g. +14155550123',
    );
    const wrongType = await http(addUrl(), {
      method: 'POST',
      key: alpha.key,
      body: { phone_number: 14155550199 },
    });
    expect(wrongType.status).toBe(400);
    expect((wrongType.json as unknown as { error: { message: string } }).error.message).toMatch(
      /^phone_number: /,
    );
    const taken = await http(addUrl(), {
      method: 'POST',
      key: alpha.key,
      body: { phone_number: '+14155550100' },
    });
    expect(taken.status).toBe(409);
    expect(await countNumbers()).toBe(before);
  });

  it('a valid write through tRPC over HTTP is stored', async () => {
    const before = await countNumbers();
    const res = await http(addUrl(), {
      method: 'POST',
      key: alpha.key,
      body: { phone_number: '+14155550199' },
    });
    expect(res.status).toBe(200);
    expect(await countNumbers()).toBe(before + 1);
  });
});

describe('tRPC batches', () => {
  it("answers a page's queries batched in one request, however long their names together", async () => {
    const procedures = Array.from({ length: 12 }, () => 'phoneNumbers.list');
    const input = Object.fromEntries(procedures.map((_, i) => [i, {}]));
    const path = procedures.join(',');
    expect(path.length).toBeGreaterThan(100);
    const res = await http(
      `${api.url}/trpc/${path}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`,
      { key: alpha.key },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json).toHaveLength(12);
  });
});

describe('an empty body is no body', () => {
  // Many HTTP clients send `Content-Type: application/json` and nothing else on GET and DELETE.
  const bodiless = [
    ...restRoutes.filter((route) => !route.body).map(({ method, path }) => ({ method, path })),
    ...REMOVED_OPERATIONS,
  ];
  const urlOf = (path: string) =>
    api.url + path.replace(/\{[a-z_]+\}/g, '7b1c5d0e-2f3a-4b5c-8d6e-9f0a1b2c3d4e');

  it.each(bodiless)('$method $path answers as it does without the header', async ({ method, path }) => {
    const bare = await http(urlOf(path), { method, key: alpha.key });
    const declared = await http(urlOf(path), {
      method,
      key: alpha.key,
      headers: { 'content-type': 'application/json', 'content-length': '0' },
    });
    expect(declared.status).not.toBe(400);
    expect({ status: declared.status, json: declared.json }).toEqual({
      status: bare.status,
      json: bare.json,
    });
  });

  it('a removed operation called that way is 404', async () => {
    const res = await http(`${api.url}/v1/call-delete/7b1c5d0e-2f3a-4b5c-8d6e-9f0a1b2c3d4e`, {
      method: 'DELETE',
      key: alpha.key,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: 'Not found' });
  });
});

describe('faults', () => {
  it('an unexpected error is 500 with a request id and no internals', async () => {
    const broken = await startTestApi({
      core: {
        db: new Proxy(api.deps.db, {
          get(target, property, receiver) {
            if (property === 'voice') {
              return {
                findMany: () => Promise.reject(new Error('connection reset: secret-internal-detail')),
              };
            }
            return Reflect.get(target, property, receiver);
          },
        }),
      },
    });
    try {
      const res = await http(`${broken.url}/v1/list-voices`, {
        key: alpha.key,
        headers: { 'x-request-id': 'fault-1' },
      });
      expect(res.status).toBe(500);
      expect(res.json).toEqual({ error: 'Internal server error', request_id: 'fault-1' });
      expect(res.text).not.toContain('secret-internal-detail');
      // The operator finds the cause in the log under the same request id.
      expect(
        broken.logs.some(
          (line) => line.reqId === 'fault-1' && JSON.stringify(line).includes('secret-internal-detail'),
        ),
      ).toBe(true);
    } finally {
      await broken.close();
    }
  });

  it('healthz is 503 when Temporal is unreachable', async () => {
    const noTemporal = await startTestApi({ pingTemporal: () => Promise.reject(new Error('unavailable')) });
    try {
      const res = await http(`${noTemporal.url}/healthz`);
      expect(res.status).toBe(503);
      expect(res.json).toEqual({
        status: 'unavailable',
        checks: { database: 'ok', temporal: 'unreachable' },
      });
    } finally {
      await noTemporal.close();
    }
  });
});
