import { TRPCError, type AnyProcedure, type TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import {
  CreateCampaignInput,
  ERROR_CODES,
  createAgent,
  createApiKey,
  createCampaign,
  createUser,
  dialCall,
  handleCallEnded,
  signUserToken,
  type ErrorCode,
} from '@voice/core';
import { runCallToEnd, startsNothing, testAgentInput } from '@voice/core/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { http, seedAccount, startTestApi, type TestApi } from '../../test/harness';
import { restRoutes } from '../rest';
import type { AnyRestRoute } from '../rest/route';
import { BODY_LIMIT_BYTES } from '../server';
import { appRouter } from '@voice/trpc';

/**
 * Hostile input for every write endpoint, over real HTTP: whatever the body, the answer is never a
 * 5xx, a 4xx has the endpoint's error shape, and a 4xx writes no row anywhere.
 */

// Fixed, so a failure replays; PROPERTY_SEED explores other inputs.
const SEED = Number(process.env.PROPERTY_SEED ?? 20_260_101);
const RUNS = { structured: 30, oversized: 10, raw: 20 } as const;

// Every REST write and every tRPC mutation, read from the tables the server itself registers.
const restWrites = restRoutes.filter((route) => route.method !== 'GET');
const trpcProcedures = Object.entries(
  appRouter._def.procedures as unknown as Record<string, AnyProcedure>,
).map(([path, procedure]) => ({
  path,
  type: procedure._def.type,
  fields: (procedure._def.inputs as z.core.$ZodType[]).flatMap(fieldNames),
}));
const trpcMutations = trpcProcedures.filter((procedure) => procedure.type === 'mutation');
// Queries and the subscription take their input in the URL (`?input=`).
const trpcReads = trpcProcedures.filter((procedure) => procedure.type !== 'mutation');

/** Top-level field names of a zod object schema, through optional/default/pipe wrappers. */
function fieldNames(schema: z.core.$ZodType | undefined): string[] {
  if (!schema) return [];
  const def = schema._zod.def;
  if (def.type === 'object') return Object.keys((def as z.core.$ZodObjectDef).shape);
  if (def.type === 'pipe') return fieldNames((def as z.core.$ZodPipeDef).in);
  if ('innerType' in def) return fieldNames(def.innerType as z.core.$ZodType);
  return [];
}

const pathParams = (route: AnyRestRoute) => [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);

// Bodies are described, not built, so a counterexample prints small and readable.

type BodySpec =
  | { kind: 'json'; value: unknown }
  | { kind: 'huge'; base: Record<string, unknown>; field: string; unit: string; length: number }
  | {
      kind: 'deep';
      base: Record<string, unknown> | null;
      field: string;
      shape: 'array' | 'object';
      depth: number;
    }
  | { kind: 'raw'; contentType: string; text: string };

const HOSTILE_TEXT = [
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF',
  'x\uDBFFy',
  '\u202Eevil\u202C',
  '\u200F\u05E9\u05DC\u05D5\u05DD',
  '\u{1F469}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}',
  '\u{1F1EE}\u{1F1F1}',
  'e\u0301\u0302\u0303\u0304\u0305',
  'Z\u0338\u0321\u0322\u031B\u0317',
  '\uFEFF',
  '\u200B',
  '\u2028\u2029',
  '\uFFFE\uFFFF',
  '\u0085\r\n\t',
  ' ',
  '',
  '\\',
  '"',
  "'; DROP TABLE calls; --",
  '%00%s%n',
  '${7*7}{{7*7}}',
  '__proto__',
  'constructor',
];

const hostileString = fc.oneof(
  fc.constantFrom(...HOSTILE_TEXT),
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.array(fc.constantFrom(...HOSTILE_TEXT), { minLength: 2, maxLength: 4 }).map((parts) => parts.join('')),
);

const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 12 }),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
);

/** The value, or a variant with hostile text in a string, a wrong type in a scalar, a hostile extra key. */
function perturbed(value: unknown): fc.Arbitrary<unknown> {
  if (typeof value === 'string') {
    return fc.oneof(
      { weight: 2, arbitrary: fc.constant(value) },
      { weight: 1, arbitrary: hostileString.map((text) => value + text) },
      { weight: 1, arbitrary: hostileString },
    );
  }
  if (Array.isArray(value)) return fc.tuple(...value.map(perturbed));
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    return fc
      .tuple(
        fc.tuple(...entries.map(([, inner]) => perturbed(inner))),
        fc.option(fc.tuple(hostileString, hostileString), { freq: 4 }),
      )
      .map(([values, extra]) => ({
        ...Object.fromEntries(entries.map(([key], index) => [key, values[index]])),
        ...(extra && { [extra[0]]: extra[1] }),
      }));
  }
  return fc.oneof({ weight: 3, arbitrary: fc.constant(value) }, { weight: 1, arbitrary: wrongType });
}

/** Valid-looking values by field name, so some generated bodies get past validation to the database. */
function plausibleValues(ids: Record<string, string>): Record<string, unknown> {
  return {
    name: 'Front desk',
    prompt: 'Help the caller.',
    language: 'en',
    voice: 'Ori',
    welcome_message: 'Hello!',
    variables_provided: [{ name: 'first_name', description: 'Caller name', default: 'Dana' }],
    variables_extracted: [{ name: 'outcome', description: 'What was agreed', required: true }],
    webhooks: [
      {
        name: 'CRM',
        url: 'https://hooks.example/calls',
        secret: 'a-secret-value',
        headers: { 'X-Tenant': 't1' },
      },
    ],
    notification_emails: ['ops@example.com'],
    agent_name: 'Front desk copy',
    from_number: '+14155550100',
    to_number: '+14155550199',
    vars_provided: { first_name: 'Dana' },
    dynamic_variables: { first_name: 'Dana' },
    filter_criteria: { call_status: ['ended'], include_test_calls: true },
    sort_order: 'ascending',
    limit: 10,
    metadata: { ticket: 'T-7', tags: ['vip'] },
    from_numbers: ['+14155550101'],
    timezone: 'America/New_York',
    schedule: {},
    calling_windows: [{ days: ['mon'], start: '09:00', end: '17:00' }],
    max_concurrent_calls: 2,
    dials_per_minute: 30,
    retry_policy: { max_attempts: 2 },
    contacts: [{ to_number: '+14155550123', variables: { first_name: 'Dana' } }],
    draft: true,
    status: 'draft',
    state: 'queued',
    after: 0,
    phone_numbers: ['+14155550150'],
    reason: 'Asked not to be called',
    phone_number: '+14155550160',
    display_name: 'Front desk',
    idempotency_key: 'retry-1',
    ...ids,
  };
}

/**
 * A real id of the seeded account half the time, any other string the rest: another account's id of
 * the same kind among them.
 */
function idArbitrary(
  real: string | undefined,
  foreign = real && otherIds[realIdKind(real)],
): fc.Arbitrary<string> {
  const other = fc
    .oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
      fc.uuid(),
      fc.constantFrom('\u0000', '%', ' ', 'null', '00000000-0000-0000-0000-000000000000'),
      ...(real ? [fc.constantFrom(`${real}\u0000`, real.toUpperCase(), ` ${real}`)] : []),
      ...(foreign ? [fc.constant(foreign)] : []),
    )
    // "." and ".." are dot segments: the URL parser resolves them before a request leaves.
    .filter((value) => value !== '.' && value !== '..');
  return real ? fc.oneof(fc.constant(real), other) : other;
}

function structuredBodies(fields: string[], plausible: Record<string, unknown>): fc.Arbitrary<BodySpec> {
  const known = fields.filter((field) => field in plausible);
  const base = Object.fromEntries(known.map((field) => [field, plausible[field]]));
  const anyValue = (field: string) =>
    fc.oneof(
      { weight: 3, arbitrary: field in plausible ? perturbed(plausible[field]) : wrongType },
      { weight: 1, arbitrary: wrongType },
      { weight: 1, arbitrary: hostileString },
    );
  const values: fc.Arbitrary<unknown>[] = [
    fc.jsonValue({ maxDepth: 4 }),
    fc.record(Object.fromEntries(fields.map((field) => [field, wrongType])), { requiredKeys: [] }),
    fc.record(Object.fromEntries(fields.map((field) => [field, anyValue(field)])), { requiredKeys: [] }),
  ];
  if (known.length > 0) {
    // One field off a valid-looking body: the likeliest way to reach the database with hostile text.
    const nearValid = fc
      .constantFrom(...known)
      .chain((field) => perturbed(plausible[field]).map((value) => ({ ...base, [field]: value })));
    values.push(nearValid, nearValid);
  }
  return fc.oneof(...values).map((value) => ({ kind: 'json' as const, value }));
}

function oversizedBodies(fields: string[], plausible: Record<string, unknown>): fc.Arbitrary<BodySpec> {
  const base = Object.fromEntries(
    fields.filter((field) => field in plausible).map((field) => [field, plausible[field]]),
  );
  const field = fields.length > 0 ? fc.constantFrom(...fields) : fc.constant('extra');
  const huge = fc.record({
    kind: fc.constant('huge' as const),
    base: fc.constant(base),
    field,
    unit: fc.constantFrom('a', '\u00E9', '\u{1F600}', '\u0000', '\uD800', 'e\u0301'),
    // Under the 1 MB limit and over it; a multi-byte unit takes 1,000,000 over as well.
    length: fc.constantFrom(100_000, 1_000_000, BODY_LIMIT_BYTES + 1),
  });
  const deep = fc.record({
    kind: fc.constant('deep' as const),
    base: fc.option(fc.constant(base), { freq: 3 }),
    field,
    shape: fc.constantFrom('array' as const, 'object' as const),
    depth: fc.constantFrom(1_000, 10_000, 100_000),
  });
  return fc.oneof(huge, deep);
}

const NOT_JSON_CONTENT_TYPES = [
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'text/html',
  'application/octet-stream',
  'application/javascript',
  'application/json-patch+json',
  'application/vnd.api+json',
  'image/png',
  '',
];

const AWKWARD_JSON_TEXT = [
  '',
  ' ',
  '{',
  '}',
  '{"a":}',
  "{'a':1}",
  '{a:1}',
  '[1,]',
  '{"a":1,}',
  'NaN',
  'undefined',
  '{"a":1}{"b":2}',
  '\uFEFF{}',
  '{"a":"\\x41"}',
  '{"a":"\\ud800"}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '"\\u0000"',
  'null',
  '0',
  '[]',
  '"text"',
  'true',
];

function rawBodies(fields: string[], plausible: Record<string, unknown>): fc.Arbitrary<BodySpec> {
  const valid = JSON.stringify(
    Object.fromEntries(
      fields.filter((field) => field in plausible).map((field) => [field, plausible[field]]),
    ),
  );
  const text = fc.oneof(
    fc.constantFrom(...AWKWARD_JSON_TEXT),
    fc.nat(valid.length - 1).map((end) => valid.slice(0, end)),
    fc.string({ unit: 'binary', maxLength: 40 }),
  );
  return fc.oneof(
    text.map((body) => ({ kind: 'raw' as const, contentType: 'application/json', text: body })),
    fc
      .tuple(
        fc.constantFrom(...NOT_JSON_CONTENT_TYPES),
        fc.oneof(fc.constant(valid), fc.constantFrom('a=1&b=2', '<a/>', '--x\r\n\r\n1\r\n--x--'), text),
      )
      .map(([contentType, body]) => ({ kind: 'raw' as const, contentType, text: body })),
  );
}

function render(spec: BodySpec): { contentType: string; text: string } {
  switch (spec.kind) {
    case 'json':
      return { contentType: 'application/json', text: JSON.stringify(spec.value) ?? 'null' };
    case 'huge':
      return {
        contentType: 'application/json',
        text: JSON.stringify({ ...spec.base, [spec.field]: spec.unit.repeat(spec.length) }),
      };
    case 'deep': {
      const nested =
        spec.shape === 'array'
          ? '['.repeat(spec.depth) + ']'.repeat(spec.depth)
          : '{"a":'.repeat(spec.depth) + 'null' + '}'.repeat(spec.depth);
      if (!spec.base) return { contentType: 'application/json', text: nested };
      const placeholder = '\u0001deep\u0001';
      const text = JSON.stringify({ ...spec.base, [spec.field]: placeholder }).replace(
        JSON.stringify(placeholder),
        () => nested,
      );
      return { contentType: 'application/json', text };
    }
    case 'raw':
      return { contentType: spec.contentType, text: spec.text };
  }
}

/** Percent-encodes every byte but the unreserved ones, lone surrogates included (as U+FFFD). */
function encodeSegment(value: string): string {
  return Array.from(Buffer.from(value, 'utf8'), (byte) =>
    /[A-Za-z0-9_~-]/.test(String.fromCharCode(byte))
      ? String.fromCharCode(byte)
      : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
  ).join('');
}

let api: TestApi;
let apiKey: string;
let userToken: string;
let plausible: Record<string, unknown>;
let realIds: Record<string, string>;
/** Another account's resources, by the field that names each: never to be read or changed here. */
let otherIds: Record<string, string>;
/** A digest of every row of the other account, to compare at the end. */
let otherRows: () => Promise<string>;
let otherDigest: string;
const realIdKind = (id: string) => Object.entries(realIds).find(([, value]) => value === id)?.[0] ?? '';
/** Rows added (inserted less deleted) since the triggers were made, per table. */
let rowCounts: () => Promise<Record<string, number>>;

beforeAll(async () => {
  api = await startTestApi({ core: { workflows: startsNothing } });
  const { deps } = api;
  const seeded = await seedAccount(deps, 'Props', ['+14155550100', '+14155550101']);
  const accountId = seeded.account.id;
  apiKey = seeded.key;
  const user = await createUser(deps, { accountId, email: 'ops@props.example' });
  userToken = await signUserToken(deps.config.jwtSecret, { userId: user.id, accountId });

  // One of each resource a write can name: a finished call with a webhook delivery, a campaign, a
  // spare API key (revoking the one the tests use would turn every later request into a 401).
  const hooked = await createAgent(
    deps,
    testAgentInput(accountId, {
      name: 'Hooked',
      webhooks: [{ name: 'CRM', url: 'https://hooks.example/calls' }],
    }),
  );
  const call = await dialCall(deps, {
    accountId,
    from_number: '+14155550100',
    to_number: '+14155550199',
    override_agent_id: hooked.agent_id,
  });
  await runCallToEnd(deps, call.call_id);
  await handleCallEnded(deps, call.call_id);
  const delivery = await deps.db.webhookDelivery.findFirstOrThrow({ where: { accountId } });
  const campaign = await createCampaign(deps, {
    accountId,
    ...CreateCampaignInput.parse({
      name: 'Spring',
      agent_id: seeded.agent.id,
      from_numbers: ['+14155550101'],
      contacts: [{ to_number: '+14155550123' }],
    }),
  });
  const spare = await createApiKey(deps, { accountId, name: 'spare' });
  realIds = {
    agent_id: seeded.agent.id,
    override_agent_id: hooked.agent_id,
    call_id: call.call_id,
    pagination_key: call.call_id,
    campaign_id: campaign.body.campaign_id,
    delivery_id: delivery.id,
    id: spare.apiKey.id,
  };
  plausible = plausibleValues(realIds);

  const other = await seedAccount(deps, 'Other', ['+14155550170']);
  const otherCall = await dialCall(deps, {
    accountId: other.account.id,
    from_number: '+14155550170',
    to_number: '+14155550199',
  });
  const otherCampaign = await createCampaign(deps, {
    accountId: other.account.id,
    ...CreateCampaignInput.parse({
      name: 'Theirs',
      agent_id: other.agent.id,
      from_numbers: ['+14155550170'],
      contacts: [{ to_number: '+14155550124' }],
    }),
  });
  const otherKey = await createApiKey(deps, { accountId: other.account.id, name: 'theirs' });
  otherIds = {
    agent_id: other.agent.id,
    override_agent_id: other.agent.id,
    call_id: otherCall.call_id,
    pagination_key: otherCall.call_id,
    campaign_id: otherCampaign.body.campaign_id,
    id: otherKey.apiKey.id,
  };
  // Every table with an account_id: the other account's rows, as text, in a fixed order.
  const accountTables = await deps.db.$queryRawUnsafe<{ name: string }[]>(
    `SELECT table_name AS name FROM information_schema.columns
      WHERE table_schema = current_schema() AND column_name = 'account_id' ORDER BY 1`,
  );
  otherRows = async () => {
    const parts: string[] = [];
    for (const { name } of accountTables) {
      const [row] = await deps.db.$queryRawUnsafe<{ digest: string | null }[]>(
        `SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest FROM "${name}" t WHERE account_id = $1::uuid`,
        other.account.id,
      );
      parts.push(`${name}:${row?.digest ?? ''}`);
    }
    return parts.join('\n');
  };
  otherDigest = await otherRows();

  // Each table's rows, counted by a trigger in the writing transaction (+1 for a row inserted, -1 for
  // one deleted; a rolled-back write counts nothing, as it leaves nothing): a snapshot is one small read
  // rather than a count of every table.
  await deps.db.$executeRawUnsafe(`CREATE TABLE row_writes (name text PRIMARY KEY, n bigint NOT NULL)`);
  await deps.db.$executeRawUnsafe(`
    CREATE FUNCTION count_row_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO row_writes (name, n) VALUES (TG_TABLE_NAME, CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END)
        ON CONFLICT (name) DO UPDATE SET n = row_writes.n + excluded.n;
      RETURN NULL;
    END $$`);
  const tables = await deps.db.$queryRawUnsafe<{ name: string }[]>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'row_writes'`,
  );
  expect(tables.length).toBeGreaterThan(10);
  for (const { name } of tables)
    await deps.db.$executeRawUnsafe(
      `CREATE TRIGGER count_row_write AFTER INSERT OR DELETE ON "${name.replaceAll('"', '""')}"
       FOR EACH ROW EXECUTE FUNCTION count_row_write()`,
    );
  rowCounts = async () =>
    Object.fromEntries(
      (
        await deps.db.$queryRaw<{ name: string; n: bigint }[]>`SELECT name, n FROM row_writes ORDER BY name`
      ).map(({ name, n }) => [name, Number(n)]),
    );
});
afterAll(() => api?.close());

type Response = Awaited<ReturnType<typeof http>>;

const summary = (res: Response) =>
  `${res.status} ${res.headers.get('content-type') ?? ''} ${res.text.slice(0, 300)}`;

function expectRestError(route: AnyRestRoute, res: Response) {
  const body = res.json as unknown;
  // Authentication and rate limiting always answer {error}; everything else follows the route.
  const statusMessage = route.errorShape === 'status-message' && res.status !== 401 && res.status !== 429;
  expect(res.headers.get('content-type'), summary(res)).toMatch(/^application\/json/);
  expect(body, summary(res)).toStrictEqual(
    statusMessage ? { status: 'error', message: expect.any(String) } : { error: expect.any(String) },
  );
  const message = statusMessage ? (body as { message: string }).message : (body as { error: string }).error;
  expect(message.trim(), summary(res)).not.toBe('');
  expect(message, summary(res)).not.toBe('Internal server error');
}

/** Refusals Fastify makes before tRPC sees the request, in tRPC's shape all the same. */
const FRAMEWORK_REFUSALS: Record<number, string> = {
  413: 'Request body must be at most 1 MB',
  415: 'Content-Type must be application/json',
};

function expectTrpcError(path: string, res: Response) {
  expect(res.headers.get('content-type'), summary(res)).toMatch(/^application\/json/);
  expectTrpcErrorShape(path, res.status, res.headers.get('x-request-id'), res.json, summary(res));
  const framework = FRAMEWORK_REFUSALS[res.status];
  if (framework)
    expect((res.json as unknown as { error: { message: string } }).error.message).toBe(framework);
}

/**
 * One error of the tRPC shape (the formatter's, packages/trpc/src/trpc.ts) for `path`, answered with
 * `status`: its code, HTTP status and app code agree, and its message says something.
 */
function expectTrpcErrorShape(
  path: string | undefined,
  status: number,
  requestId: string | null | undefined,
  json: unknown,
  context: string,
) {
  const data = (json as { error?: { data?: { code?: TRPC_ERROR_CODE_KEY; appCode?: ErrorCode } } })?.error
    ?.data;
  const code = data?.code as TRPC_ERROR_CODE_KEY;
  expect(json, context).toStrictEqual({
    error: {
      message: expect.any(String),
      code: TRPC_ERROR_CODES_BY_KEY[code],
      data: {
        code,
        httpStatus: status,
        ...(path !== undefined && { path }),
        ...(requestId !== undefined && { requestId }),
        ...(data?.appCode !== undefined && { appCode: data.appCode }),
      },
    },
  });
  expect(getHTTPStatusCodeFromError(new TRPCError({ code })), context).toBe(status);
  if (data?.appCode !== undefined) expect(ERROR_CODES[data.appCode]?.trpc, context).toBe(code);
  const { message } = (json as { error: { message: string } }).error;
  expect(message.trim(), context).not.toBe('');
  expect(message, context).not.toBe('Internal server error');
}

/** No answer names another account's resource the request did not name itself. */
function expectNoForeignIds(res: Response, sent: string) {
  for (const id of new Set(Object.values(otherIds)))
    if (!sent.includes(id))
      expect(res.text.includes(id), `another account's ${id} in ${summary(res)}`).toBe(false);
}

/** Sends one request and checks the three properties; a 2xx may write, and the next run re-counts. */
async function expectSafeWrite(
  request: { url: string; method: string; credential: string; body: BodySpec },
  expectErrorShape: (res: Response) => void,
) {
  const before = await rowCounts();
  const { contentType, text } = render(request.body);
  const res = await http(request.url, {
    method: request.method,
    key: request.credential,
    rawBody: text,
    headers: { 'content-type': contentType },
  });
  expect(res.status, summary(res)).toBeLessThan(500);
  expectNoForeignIds(res, request.url + text);
  if (res.status >= 400) {
    expectErrorShape(res);
    expect(await rowCounts(), `rows written by a ${summary(res)}`).toStrictEqual(before);
  }
}

const families = [
  { name: 'structured JSON bodies', runs: RUNS.structured, bodies: structuredBodies },
  { name: 'huge strings and deep nesting', runs: RUNS.oversized, bodies: oversizedBodies },
  { name: 'invalid JSON and wrong content types', runs: RUNS.raw, bodies: rawBodies },
];

describe('write endpoints are generated from the server', () => {
  it('finds REST writes and tRPC mutations', () => {
    expect(restWrites.length).toBeGreaterThan(0);
    expect(trpcMutations.length).toBeGreaterThan(0);
  });
});

describe.each(restWrites.map((route) => [`${route.method} ${route.path}`, route] as const))(
  'REST %s',
  (_name, route) => {
    const params = pathParams(route);
    const fields = fieldNames(route.body as z.core.$ZodType | undefined);

    it.each(families)('$name', async ({ runs, bodies }) => {
      const paramValues = fc.record(
        Object.fromEntries(params.map((param) => [param, idArbitrary(realIds[param])])),
      );
      await fc.assert(
        fc.asyncProperty(paramValues, bodies(fields, plausible), async (values, body) => {
          const path = route.path.replace(/\{(\w+)\}/g, (_match, param: string) =>
            encodeSegment(values[param]!),
          );
          await expectSafeWrite(
            { url: `${api.url}${path}`, method: route.method, credential: apiKey, body },
            (res) => expectRestError(route, res),
          );
        }),
        { seed: SEED, numRuns: runs },
      );
    });
  },
);

describe.each(trpcMutations.map((mutation) => [mutation.path, mutation] as const))(
  'tRPC %s',
  (path, { fields }) => {
    it.each(families)('$name', async ({ runs, bodies }) => {
      // Id fields play the part of path parameters: a real id half the time.
      const idFields = fields.filter((field) => field in realIds);
      const withIds = (body: BodySpec) =>
        fc
          .option(
            fc.record(Object.fromEntries(idFields.map((field) => [field, idArbitrary(realIds[field])]))),
            { freq: 4 },
          )
          .map((ids): BodySpec => {
            if (!ids) return body;
            const { value } = body as { value?: unknown };
            if (body.kind === 'json' && value && typeof value === 'object' && !Array.isArray(value))
              return { kind: 'json', value: { ...value, ...ids } };
            if ((body.kind === 'huge' || body.kind === 'deep') && body.base)
              return { ...body, base: { ...body.base, ...ids } };
            return body;
          });
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('api key', 'dashboard user'),
          bodies(fields, plausible).chain(withIds),
          async (who, body) => {
            await expectSafeWrite(
              {
                url: `${api.url}/trpc/${path}`,
                method: 'POST',
                credential: who === 'api key' ? apiKey : userToken,
                body,
              },
              (res) => expectTrpcError(path, res),
            );
          },
        ),
        { seed: SEED, numRuns: runs },
      );
    });
  },
);

/**
 * A GET as a tRPC client makes it. A subscription's stream is not waited for: its headers are enough (a
 * refused input answers JSON before any stream starts).
 */
async function read(url: string, credential: string): Promise<Response> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${credential}` },
    signal: controller.signal,
  });
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    controller.abort();
    return { status: response.status, headers: response.headers, json: undefined as never, text: '' };
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json: json as never, text };
}

describe.each(trpcReads.map((procedure) => [`${procedure.path} (${procedure.type})`, procedure] as const))(
  'tRPC %s, its input in the URL',
  (_name, { path, fields }) => {
    const families = ['structured JSON inputs', 'invalid JSON'] as const;
    it.each(families)('%s', async (family) => {
      // Id fields are this account's, another's or anything, as a mutation's are.
      const idFields = fields.filter((field) => field in realIds);
      const arbitrary =
        family === 'structured JSON inputs'
          ? fc
              .tuple(
                structuredBodies(fields, plausible),
                fc.option(
                  fc.record(
                    Object.fromEntries(idFields.map((field) => [field, idArbitrary(realIds[field])])),
                  ),
                  { freq: 3 },
                ),
              )
              .map(([body, ids]) => {
                const { value } = body as { value: unknown };
                const withIds =
                  ids && value && typeof value === 'object' && !Array.isArray(value)
                    ? { ...value, ...ids }
                    : value;
                return JSON.stringify(withIds) ?? 'null';
              })
          : fc.oneof(fc.constantFrom(...AWKWARD_JSON_TEXT), fc.string({ unit: 'binary', maxLength: 40 }));
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('api key', 'dashboard user'), arbitrary, async (who, input) => {
          const before = await rowCounts();
          const res = await read(
            `${api.url}/trpc/${path}?input=${encodeURIComponent(input)}`,
            who === 'api key' ? apiKey : userToken,
          );
          expect(res.status, summary(res)).toBeLessThan(500);
          expectNoForeignIds(res, input);
          if (res.status >= 400) {
            expectTrpcError(path, res);
            expect(await rowCounts(), `rows written by a ${summary(res)}`).toStrictEqual(before);
          }
        }),
        { seed: SEED, numRuns: family === 'structured JSON inputs' ? RUNS.structured : RUNS.raw },
      );
    });
  },
);

describe('tRPC batches', () => {
  const paths = trpcProcedures.map((procedure) => procedure.path);
  const batchInput = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.dictionary(fc.constantFrom('0', '1', '2', '5', '-1', '__proto__', 'x'), fc.jsonValue({ maxDepth: 2 })),
    fc.constantFrom(...AWKWARD_JSON_TEXT).map((text) => ({ raw: text })),
  );
  const batch = fc.record({
    method: fc.constantFrom('GET', 'POST'),
    procedures: fc.array(
      fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(...paths) },
        fc.constantFrom('nope.nope', '', 'agents'),
      ),
      {
        minLength: 1,
        maxLength: 4,
      },
    ),
    flag: fc.constantFrom('batch=1', 'batch=1', 'batch=2', 'batch=true', ''),
    input: batchInput,
    who: fc.constantFrom('api key', 'dashboard user'),
  });

  it('answers malformed batches in the tRPC shape, one answer per procedure, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(batch, async ({ method, procedures, flag, input, who }) => {
        const text =
          input && typeof input === 'object' && 'raw' in input && typeof input.raw === 'string'
            ? input.raw
            : JSON.stringify(input);
        const joined = procedures.map(encodeSegment).join(',');
        const credential = who === 'api key' ? apiKey : userToken;
        const url = `${api.url}/trpc/${joined}?${flag}${method === 'GET' ? `&input=${encodeURIComponent(text)}` : ''}`;
        const res =
          method === 'GET'
            ? await read(url, credential)
            : await http(url, {
                method,
                key: credential,
                rawBody: text,
                headers: { 'content-type': 'application/json' },
              });
        const context = `${method} ${procedures.join(',')}?${flag} ${text.slice(0, 80)} → ${summary(res)}`;
        expect(res.status, context).toBeLessThan(500);
        expectNoForeignIds(res, text);
        if (res.text === '' && res.status < 400) return; // a subscription's stream
        expect(res.headers.get('content-type'), context).toMatch(/^application\/json/);
        if (!Array.isArray(res.json)) {
          // The batch refused as a whole (e.g. queries and mutations mixed), before any procedure ran.
          const data = (res.json as { error?: { data?: { path?: string; requestId?: string } } }).error?.data;
          expectTrpcErrorShape(data?.path, res.status, data?.requestId, res.json, context);
          return;
        }
        expect(res.json, context).toHaveLength(procedures.length);
        for (const [index, answer] of (res.json as unknown[]).entries()) {
          if (answer && typeof answer === 'object' && 'result' in answer) continue;
          const data = (answer as { error?: { data?: { httpStatus?: number; requestId?: string } } }).error
            ?.data;
          expect(data, context).toBeDefined();
          expectTrpcErrorShape(procedures[index], data!.httpStatus!, data!.requestId, answer, context);
        }
      }),
      { seed: SEED, numRuns: 60 },
    );
  });
});

describe('another account', () => {
  it('has every row as it was, after all of the above', async () => {
    expect(await otherRows()).toBe(otherDigest);
  });
});

describe('the hostile-input suite covers every procedure', () => {
  it('sends every tRPC procedure hostile input: mutations in bodies, queries and subscriptions in URLs', () => {
    const covered = new Set([...trpcMutations, ...trpcReads].map((procedure) => procedure.path));
    expect([...covered].sort()).toEqual(Object.keys(appRouter._def.procedures).sort());
    expect(trpcReads.some((procedure) => procedure.type === 'subscription')).toBe(true);
  });
});
