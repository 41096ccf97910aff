import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  APPOINTMENT_FLOW,
  CreateCampaignInput,
  addKnowledgeDocument,
  createFlowAgent,
  createKnowledgeBase,
  startAgentTest,
  saveFlowDraft,
  addDoNotCall,
  addPhoneNumber,
  addTestContact,
  assignPhoneNumber,
  createAccount,
  createAgent,
  createApiKey,
  createCampaign,
  createCarrierConnection,
  createUser,
  dialCall,
  dialCallIdempotently,
  generateApiKey,
  getCall,
  recordEvent,
  revokeApiKey,
  signUserToken,
} from '@voice/core';
import { runCallToEnd, startsNothing, TEST_JWT_SECRET, testAgentInput } from '@voice/core/testing';
import { startTwilioEmulator, type TwilioEmulator } from '@voice/twilio-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestApi, type TestApi } from '../../test/harness';
import { restRoutes } from '../rest';
import { REMOVED_OPERATIONS, toFastifyPath, type AnyRestRoute } from '../rest/route';
import { appRouter } from '@voice/trpc';

/*
 * Every REST operation (`restRoutes`) and every tRPC procedure (the app router), read from the code,
 * against each way a credential can be wrong and against another account's resources. A new endpoint
 * joins the matrix by itself; one naming a resource this file cannot fill with another account's
 * fails "the matrix covers every endpoint" by name until a probe is added for it.
 */

type Response = Awaited<ReturnType<typeof http>>;

/** One account's resources, one of each kind an endpoint can name. */
interface Resources {
  accountId: string;
  agentId: string;
  /** The agent's webhook. */
  webhookId: string;
  /** Assigned to `agentId`. */
  phoneNumber: string;
  /** A number of the account no call or campaign uses, so it may be released. */
  spareNumber: string;
  callId: string;
  /** A call that ended with something said: it can be analysed again. */
  endedCallId: string;
  /** Running, one contact queued. */
  campaignId: string;
  deliveryId: string;
  doNotCallNumber: string;
  testContactNumber: string;
  /** A key of the account other than the one making the requests. */
  apiKeyId: string;
  /** A Twilio account the account connected (at the emulator), and its auth token. */
  carrierConnectionId: string;
  carrierAuthToken: string;
  /** A flow agent with a saved draft. */
  flowAgentId: string;
  knowledgeBaseId: string;
  documentId: string;
  /** A test bench run of `agentId`. */
  testRunId: string;
}

interface Request {
  /** The REST body or the tRPC input. */
  input?: unknown;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** REST path parameters filled otherwise than from the caller's own resources. */
  params?: Record<string, string>;
}

interface Refusal {
  status: number;
  /** The domain error code, which tRPC bodies carry as `data.appCode`; none for tRPC's own errors. */
  appCode: string | undefined;
  message: string;
}

type Outcome = { refused: Refusal } | { accepted(data: unknown, request: Request): void };

const refused = (status: number, appCode: string | undefined, message: string): Outcome => ({
  refused: { status, appCode, message },
});
const accepted = (check: (data: unknown, request: Request) => void): Outcome => ({ accepted: check });

/** A request of Alpha's that names Beta's resources. */
interface Probe {
  /** What the request fills with Beta's: path parameters, input fields (dotted), headers. */
  fills: string[];
  request(alpha: Resources, beta: Resources): Request | Promise<Request>;
  outcome(alpha: Resources, beta: Resources): Outcome;
}

interface Plan {
  /** A request Alpha may make; with Alpha's own resources it succeeds. Without one: no input. */
  request?(own: Resources): Request;
  /** Dashboard users only: Alpha calls it with a dashboard JWT, and an API key is refused. */
  usersOnly?: boolean;
  probes?: Probe[];
}

interface Endpoint {
  name: string;
  /** Path parameters, then input fields (dotted, `[]` for array items), as the code declares them. */
  inputs: string[];
  pathParams: string[];
  successStatus: number;
  /** Its input schemas accept a request without input. */
  acceptsNoInput: boolean;
  plan: Plan;
  /** The plan's probes, after those generated for path parameters. */
  probes: Probe[];
  /** The `WWW-Authenticate` header a 401 carries; tRPC answers in its own envelope, without one. */
  challenge?: string;
  send(own: Resources, request: Request, authorization: string | undefined): Promise<Response>;
  errorBody(refusal: Refusal): unknown;
  /** The answer's data: its JSON, or its text for a CSV operation. */
  dataOf(res: { json: unknown; text: string }): unknown;
}

type NotFound = readonly [appCode: string, message: string];
const AGENT_NOT_FOUND: NotFound = ['AGENT_NOT_FOUND', 'Agent not found'];
/** A test bench scenario in YAML. */
const TEST_SCENARIOS = `- name: Books a visit
  persona: Dana, a patient
  goal: Book a visit on Tuesday
  criteria: [The agent offers a time]
`;
const CALL_NOT_FOUND: NotFound = ['CALL_NOT_FOUND', 'Call not found'];
const CAMPAIGN_NOT_FOUND: NotFound = ['NOT_FOUND', 'Campaign not found'];
const PHONE_NUMBER_NOT_FOUND: NotFound = ['PHONE_NUMBER_NOT_FOUND', 'Phone number not found'];
const CARRIER_CONNECTION_NOT_FOUND: NotFound = ['NOT_FOUND', 'Carrier connection not found'];

/** REST path parameters: how to fill each with an account's resource, and what another account gets. */
const PATH_PARAMS: Record<string, { fill(r: Resources): string; notFound: NotFound }> = {
  agent_id: { fill: (r) => r.agentId, notFound: AGENT_NOT_FOUND },
  call_id: { fill: (r) => r.callId, notFound: CALL_NOT_FOUND },
  campaign_id: { fill: (r) => r.campaignId, notFound: CAMPAIGN_NOT_FOUND },
  phone_number: { fill: (r) => encodeURIComponent(r.phoneNumber), notFound: PHONE_NUMBER_NOT_FOUND },
  carrier_connection_id: { fill: (r) => r.carrierConnectionId, notFound: CARRIER_CONNECTION_NOT_FOUND },
};

/** Input names that can point at a row of some account. */
const NAMES_A_RESOURCE = /^(id|\w+_ids?|\w+_numbers?|\w+_key)$/;

/** Inputs with such names that nonetheless name nothing an account owns. */
const NOT_RESOURCES: Record<string, string> = {
  to_number: 'the number called: any destination, owned by no account',
};

/** Alpha's numbers are in 415 and Beta's in 650, so a Beta number in an Alpha response is no coincidence. */
function numbersIn(areaCode: string) {
  let next = 1000;
  return () => `+1${areaCode}555${next++}`;
}
const alphaNumber = numbersIn('415');
const betaNumber = numbersIn('650');
const BETA_NAME = 'Beta Ltd';

let api: TestApi;
/** Twilio, for carrier connections: their credentials are checked with it when saved. */
let twilioEmulator: TwilioEmulator;
let alpha: Resources;
let beta: Resources;
let alphaKey: string;
let alphaToken: string;
let revokedKey: string;
let expiredToken: string;

async function createResources(accountId: string, nextNumber: () => string): Promise<Resources> {
  const { deps } = api;
  const agent = await createAgent(
    deps,
    testAgentInput(accountId, {
      name: 'Matrix agent',
      webhooks: [{ name: 'hook', url: 'https://hooks.example/call-ended' }],
      transfer_call_enabled: true,
      transfer_call_destination: '+14155550199',
    }),
  );
  const phoneNumber = nextNumber();
  await addPhoneNumber(deps, { accountId, phone_number: phoneNumber });
  await assignPhoneNumber(deps, { accountId, phone_number: phoneNumber, agent_id: agent.agent_id });
  const spareNumber = nextNumber();
  await addPhoneNumber(deps, { accountId, phone_number: spareNumber });
  // The simulated carrier connects and completes calls to numbers ending in 0009: they get recordings.
  const call = await dialCall(deps, {
    accountId,
    from_number: phoneNumber,
    to_number: nextNumber().replace(/\d{4}$/, '0009'),
  });
  // Connected (no worker runs here), so hang-up and transfer have a live call to act on.
  await deps.db.call.update({
    where: { id: call.call_id },
    data: { status: 'ongoing', connectedAt: new Date() },
  });
  const ended = await dialCall(deps, { accountId, from_number: phoneNumber, to_number: nextNumber() });
  await deps.db.call.update({
    where: { id: ended.call_id },
    data: {
      status: 'ended',
      connectedAt: new Date(),
      endedAt: new Date(),
      transcript: [{ role: 'agent', content: 'Hello, how can I help?', timestamp_ms: 0 }],
    },
  });
  const campaign = await createCampaign(deps, {
    accountId,
    ...CreateCampaignInput.parse(campaignInput(agent.agent_id, phoneNumber, nextNumber())),
  });
  const [delivery] = await recordEvent(deps, {
    accountId,
    agentId: agent.agent_id,
    type: 'call_ended',
    callId: call.call_id,
    subject: () => ({ call_id: call.call_id }),
  });
  const doNotCallNumber = nextNumber();
  await addDoNotCall(deps, { accountId, phone_numbers: [doNotCallNumber] });
  const testContactNumber = nextNumber();
  await addTestContact(deps, { accountId, phone_number: testContactNumber });
  const { apiKey } = await createApiKey(deps, { accountId, name: 'spare' });
  const carrierAccount = twilioEmulator.addAccount();
  const connection = await createCarrierConnection(deps, {
    accountId,
    provider: 'twilio',
    account_sid: carrierAccount.sid,
    auth_token: carrierAccount.authToken,
  });
  const flowAgent = await createFlowAgent(deps, {
    accountId,
    name: 'Matrix flow',
    language: 'en',
    voice: 'Ori',
    welcome_message: '',
    variables_provided: [],
    variables_extracted: [],
    flow: APPOINTMENT_FLOW,
  });
  await saveFlowDraft(deps, { accountId, agentId: flowAgent.agent_id, flow: APPOINTMENT_FLOW });
  const base = await createKnowledgeBase(deps, { accountId, name: 'Matrix facts', language: 'en' });
  const document = await addKnowledgeDocument(deps, {
    accountId,
    knowledge_base_id: base.id,
    name: 'facts.md',
    content_type: 'text/markdown',
    data_base64: Buffer.from('# Parking\n\nFree parking behind the building.').toString('base64'),
  });
  const testRun = await startAgentTest(deps, {
    accountId,
    agentId: agent.agent_id,
    scenarios: TEST_SCENARIOS,
  });
  return {
    accountId,
    agentId: agent.agent_id,
    testRunId: testRun.run_id,
    flowAgentId: flowAgent.agent_id,
    knowledgeBaseId: base.id,
    documentId: document.id,
    webhookId: agent.webhooks[0]!.id,
    phoneNumber,
    spareNumber,
    callId: call.call_id,
    endedCallId: ended.call_id,
    campaignId: campaign.body.campaign_id,
    deliveryId: delivery!.deliveryId,
    doNotCallNumber,
    testContactNumber,
    apiKeyId: apiKey.id,
    carrierConnectionId: connection.carrier_connection_id,
    carrierAuthToken: carrierAccount.authToken,
  };
}

/** A Twilio account of the emulator's, not yet connected by anyone. */
function newTwilioAccount() {
  const account = twilioEmulator.addAccount();
  return { account_sid: account.sid, auth_token: account.authToken };
}

function campaignInput(agentId: string, fromNumber: string, toNumber: string) {
  return {
    name: 'Matrix campaign',
    agent_id: agentId,
    from_numbers: [fromNumber],
    contacts: [{ to_number: toNumber }],
  };
}

/** Every row an account owns, in a stable order, to show a request changed none of them. */
async function accountRows(accountId: string) {
  const { db } = api.deps;
  const where = { accountId };
  const orderBy = { id: 'asc' } as const;
  return Promise.all([
    db.account.findUniqueOrThrow({ where: { id: accountId } }),
    db.user.findMany({ where, orderBy }),
    db.apiKey.findMany({ where, orderBy }),
    db.agent.findMany({ where, orderBy, include: { webhooks: { orderBy } } }),
    db.phoneNumber.findMany({ where, orderBy }),
    db.call.findMany({ where, orderBy, include: { events: { orderBy } } }),
    db.testContact.findMany({ where, orderBy }),
    db.idempotencyKey.findMany({ where, orderBy }),
    db.webhookEvent.findMany({ where, orderBy, include: { deliveries: { orderBy } } }),
    db.webhookDelivery.findMany({ where, orderBy, include: { attempts: { orderBy } } }),
    db.notificationEmail.findMany({ where, orderBy }),
    db.campaign.findMany({ where, orderBy, include: { contacts: { orderBy } } }),
    db.doNotCallEntry.findMany({ where, orderBy }),
    db.carrierConnection.findMany({ where, orderBy }),
    db.knowledgeBase.findMany({ where, orderBy, include: { documents: { orderBy } } }),
    db.agentFlowVersion.findMany({
      where: { agent: { accountId } },
      orderBy: [{ agentId: 'asc' }, { version: 'asc' }],
    }),
  ]);
}

/** The ids and phone numbers in an account's rows. */
function identifiersIn(rows: unknown): string[] {
  const text = JSON.stringify(rows);
  return [
    ...new Set(text.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\+\d{8,15}/gi) ?? []),
  ];
}

/**
 * The response shows nothing of Beta's beyond what the request itself named. Phone numbers may be on
 * both accounts' lists (do-not-call, test contacts), so what Alpha holds too is not Beta's alone.
 */
async function expectNothingOfBeta(betaRows: unknown, res: Response, request: Request) {
  const named = JSON.stringify(request);
  const shown = [...identifiersIn(betaRows), BETA_NAME].filter(
    (id) => !named.includes(id) && res.text.includes(id),
  );
  // Alpha's rows (which grow with every test) are read only when the response shows one of Beta's.
  const alphaHolds = shown.length ? new Set(identifiersIn(await accountRows(alpha.accountId))) : new Set();
  expect(
    shown.filter((id) => !alphaHolds.has(id)),
    "Beta's identifiers in Alpha's response",
  ).toEqual([]);
}

/** The fields of a zod input schema, dotted for nested objects, `[]` for array items. */
function inputFields(schema: z.core.$ZodType | undefined, prefix = ''): string[] {
  if (!schema) return [];
  const def = schema._zod.def;
  if (def.type === 'object') {
    return Object.entries((def as z.core.$ZodObjectDef).shape).flatMap(([key, field]) => [
      prefix + key,
      ...inputFields(field, `${prefix}${key}.`),
    ]);
  }
  if (def.type === 'array')
    return inputFields((def as z.core.$ZodArrayDef).element, prefix.replace(/\.$/, '[].'));
  if (def.type === 'pipe') return inputFields((def as z.core.$ZodPipeDef).in, prefix);
  return inputFields((def as { innerType?: z.core.$ZodType }).innerType, prefix);
}

/** What the matrix must fill with Beta's resources: every path parameter, every input naming a resource. */
function resourceInputs(endpoint: Endpoint): string[] {
  return endpoint.inputs.filter((input) => {
    const name = input.split('.').at(-1)!;
    return endpoint.pathParams.includes(input) || (NAMES_A_RESOURCE.test(name) && !(name in NOT_RESOURCES));
  });
}

const requestOf = (plan: Plan, own: Resources): Request => plan.request?.(own) ?? {};

function withAuthorization(headers: Record<string, string> | undefined, authorization: string | undefined) {
  return { ...headers, ...(authorization === undefined ? {} : { authorization }) };
}

function restEndpoint(route: AnyRestRoute): Endpoint {
  const name = route.operationId;
  const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const plan = REST_PLANS[name] ?? {};
  // Fastify hands an absent query string or body to the handler as `{}`.
  const schemas = [route.query, route.body].filter((schema) => schema !== undefined);
  return {
    name,
    inputs: [
      ...new Set([...pathParams, ...inputFields(route.params), ...schemas.flatMap((s) => inputFields(s))]),
    ],
    pathParams,
    successStatus: route.successStatus ?? 200,
    acceptsNoInput: schemas.every((schema) => schema.safeParse({}).success),
    plan,
    probes: [...pathProbes(pathParams, plan), ...(plan.probes ?? [])],
    challenge: 'Bearer',
    send(own, request, authorization) {
      const path = route.path.replace(/\{(\w+)\}/g, (_match, param: string) => {
        const fill = PATH_PARAMS[param]?.fill;
        if (!fill) throw new Error(`${name}: no way to fill {${param}} with an account's resource`);
        return request.params?.[param] ?? fill(own);
      });
      const query = request.query ? `?${new URLSearchParams(request.query)}` : '';
      return http(`${api.url}${path}${query}`, {
        method: route.method,
        body: route.body ? (request.input ?? {}) : undefined,
        headers: withAuthorization(request.headers, authorization),
      });
    },
    // The spec's two shapes; authentication failures are always `{error}`.
    errorBody: ({ status, message }) =>
      route.errorShape === 'status-message' && status !== 401
        ? { status: 'error', message }
        : { error: message },
    dataOf: (res) => (route.produces === 'text/csv' ? res.text : res.json),
  };
}

/** One probe per path parameter: Beta's resource in Alpha's otherwise valid request is not found. */
function pathProbes(pathParams: string[], plan: Plan): Probe[] {
  return pathParams.flatMap((param) => {
    const known = PATH_PARAMS[param];
    if (!known) return [];
    return [
      {
        fills: [param],
        request: (a: Resources, b: Resources) => ({
          ...requestOf(plan, a),
          params: { [param]: known.fill(b) },
        }),
        outcome: () => refused(404, ...known.notFound),
      },
    ];
  });
}

const TRPC_CODES: Record<number, [name: string, jsonRpc: number]> = {
  400: ['BAD_REQUEST', -32600],
  401: ['UNAUTHORIZED', -32001],
  403: ['FORBIDDEN', -32003],
  404: ['NOT_FOUND', -32004],
  409: ['CONFLICT', -32009],
};

/**
 * A subscription's answer: tRPC streams server-sent events with status 200 whatever happens, a refusal
 * as a `serialized-error` event. Read up to its first data or error event, then hung up; given back as
 * a query's answer would be (the error's HTTP status, `{error}` or `{result: {data}}`).
 */
async function firstEvent(url: string, headers: Record<string, string>): Promise<Response> {
  const abort = new AbortController();
  const response = await fetch(url, {
    headers: { ...headers, accept: 'text/event-stream' },
    signal: abort.signal,
  });
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for await (const chunk of response.body!) {
      buffered += decoder.decode(chunk as Uint8Array, { stream: true });
      for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n');
        if (event === 'serialized-error') {
          const error = JSON.parse(data) as { data: { httpStatus: number } };
          const json = { error };
          return {
            status: error.data.httpStatus,
            headers: response.headers,
            json,
            text: JSON.stringify(json),
          } as unknown as Response;
        }
        if (event === 'message' && data) {
          const json = { result: { data: JSON.parse(data) as unknown } };
          return {
            status: 200,
            headers: response.headers,
            json,
            text: JSON.stringify(json),
          } as unknown as Response;
        }
      }
    }
    throw new Error(`${url}: the event stream ended without an event`);
  } finally {
    abort.abort();
  }
}

interface ProcedureDef {
  type: 'query' | 'mutation' | 'subscription';
  inputs: z.ZodType[];
}

function trpcEndpoint(path: string, def: ProcedureDef): Endpoint {
  const plan = TRPC_PLANS[path] ?? {};
  return {
    name: path,
    inputs: [...new Set(def.inputs.flatMap((schema) => inputFields(schema)))],
    pathParams: [],
    successStatus: 200,
    acceptsNoInput: def.inputs.every((schema) => schema.safeParse(undefined).success),
    plan,
    probes: plan.probes ?? [],
    send(_own, request, authorization) {
      const headers = withAuthorization(request.headers, authorization);
      if (def.type === 'subscription') {
        const input =
          request.input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(request.input))}`;
        return firstEvent(`${api.url}/trpc/${path}${input}`, headers);
      }
      if (def.type === 'query') {
        const input =
          request.input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(request.input))}`;
        return http(`${api.url}/trpc/${path}${input}`, { headers });
      }
      return http(`${api.url}/trpc/${path}`, { method: 'POST', body: request.input, headers });
    },
    errorBody: ({ status, appCode, message }) => {
      const [code, jsonRpc] = TRPC_CODES[status]!;
      return {
        error: {
          message,
          code: jsonRpc,
          data: { code, httpStatus: status, path, requestId: expect.any(String), appCode },
        },
      };
    },
    dataOf: (res) => (res.json as { result: { data: unknown } }).result.data,
  };
}

// Requests and probes, per endpoint. Only what an endpoint needs beyond the generated parts is here.

/** A procedure whose input names one resource: Alpha's own works, Beta's is not found. */
function onResource(
  field: string,
  input: (r: Resources) => Record<string, unknown>,
  [appCode, message]: NotFound,
  extra: Pick<Plan, 'usersOnly'> = {},
): Plan {
  return {
    ...extra,
    request: (own) => ({ input: input(own) }),
    probes: [
      {
        fills: [field],
        request: (_alpha, b) => ({ input: input(b) }),
        outcome: () => refused(404, appCode, message),
      },
    ],
  };
}

const withProbe = (plan: Plan, probe: Probe): Plan => ({ ...plan, probes: [...(plan.probes ?? []), probe] });

const dialInput = (own: Resources) => ({ from_number: own.phoneNumber, to_number: alphaNumber() });

/** An Idempotency-Key Beta has just dialed with. */
async function betaDialKey(b: Resources): Promise<string> {
  const key = randomUUID();
  await dialCallIdempotently(api.deps, {
    accountId: b.accountId,
    idempotencyKey: key,
    from_number: b.phoneNumber,
    to_number: betaNumber(),
  });
  return key;
}

/** An Idempotency-Key Beta has just created a campaign with. */
async function betaCampaignKey(b: Resources): Promise<string> {
  const key = randomUUID();
  await createCampaign(api.deps, {
    accountId: b.accountId,
    idempotencyKey: key,
    ...CreateCampaignInput.parse(campaignInput(b.agentId, b.phoneNumber, betaNumber())),
  });
  return key;
}

/** The same key used by another account is a new request, never a replay of Beta's response. */
const dialedAsAlpha = (a: Resources) =>
  accepted((data) =>
    expect(data).toMatchObject({ call_status: 'initiated', agent_id: a.agentId, from_number: a.phoneNumber }),
  );

/** A web call to Alpha's agent; Beta's agent is not found. */
const webCallPlan: Plan = {
  request: (own) => ({ input: { agent_id: own.agentId } }),
  probes: [
    {
      fills: ['agent_id'],
      request: (_a, b) => ({ input: { agent_id: b.agentId } }),
      outcome: () => refused(404, ...AGENT_NOT_FOUND),
    },
  ],
};

function dialProbes(withKey: (request: Request, key: string) => Request, keyName: string): Probe[] {
  return [
    {
      fills: ['from_number'],
      request: (_a, b) => ({ input: { from_number: b.phoneNumber, to_number: alphaNumber() } }),
      outcome: (_a, b) =>
        refused(403, 'FORBIDDEN', `from_number ${b.phoneNumber} is not assigned to this account`),
    },
    {
      fills: ['override_agent_id'],
      request: (a, b) => ({ input: { ...dialInput(a), override_agent_id: b.agentId } }),
      outcome: () => refused(404, ...AGENT_NOT_FOUND),
    },
    {
      fills: [keyName],
      request: async (a, b) => withKey({ input: dialInput(a) }, await betaDialKey(b)),
      outcome: dialedAsAlpha,
    },
  ];
}

function campaignProbes(withKey: (request: Request, key: string) => Request, keyName: string): Probe[] {
  const own = (a: Resources) => campaignInput(a.agentId, a.phoneNumber, alphaNumber());
  return [
    {
      fills: ['agent_id'],
      request: (a, b) => ({ input: { ...own(a), agent_id: b.agentId } }),
      outcome: (_a, b) =>
        refused(400, 'VALIDATION_FAILED', `agent_id: no agent ${b.agentId} in this account`),
    },
    {
      fills: ['from_numbers'],
      request: (a, b) => ({ input: { ...own(a), from_numbers: [b.phoneNumber] } }),
      outcome: (_a, b) =>
        refused(
          400,
          'VALIDATION_FAILED',
          `from_numbers: ${b.phoneNumber} is not a phone number of this account`,
        ),
    },
    {
      fills: [keyName],
      request: async (a, b) => withKey({ input: own(a) }, await betaCampaignKey(b)),
      outcome: (a) =>
        accepted((data) =>
          expect(data).toMatchObject({ agent_id: a.agentId, from_numbers: [a.phoneNumber] }),
        ),
    },
  ];
}

const CALL_EXPORT_HEADER =
  'call_id,start_time,call_type,direction,from_number,to_number,agent_name,agent_version,call_status,disconnection_reason,duration_seconds,is_test_call';

function callListProbes(empty: unknown): Probe[] {
  return [
    {
      fills: ['filter_criteria.agent_id'],
      request: (_a, b) => ({ input: { filter_criteria: { agent_id: [b.agentId] } } }),
      outcome: () => accepted((data) => expect(data).toEqual(empty)),
    },
    {
      fills: ['filter_criteria.campaign_id'],
      request: (_a, b) => ({ input: { filter_criteria: { campaign_id: [b.campaignId] } } }),
      outcome: () => accepted((data) => expect(data).toEqual(empty)),
    },
    {
      // Alpha's calls are never from Beta's number: the filter finds none of Beta's.
      fills: ['filter_criteria.from_number'],
      request: (_a, b) => ({ input: { filter_criteria: { from_number: { value: b.phoneNumber } } } }),
      outcome: () => accepted((data) => expect(data).toEqual(empty)),
    },
    {
      fills: ['pagination_key'],
      request: (_a, b) => ({ input: { pagination_key: b.callId } }),
      outcome: () =>
        refused(400, 'VALIDATION_FAILED', 'pagination_key must be a call_id from the previous page'),
    },
  ];
}

/** The last day, around the calls the resources made: Beta's agent or campaign counts none of Alpha's. */
const analyticsWindow = () => ({
  start_timestamp: Date.now() - 86_400_000,
  end_timestamp: Date.now() + 3_600_000,
});
const analyticsPlan: Plan = {
  request: () => ({ input: analyticsWindow() }),
  probes: (['agent_id', 'campaign_id'] as const).map((field) => ({
    fills: [`filter_criteria.${field}`],
    request: (_a, b) => ({
      input: {
        ...analyticsWindow(),
        filter_criteria: { [field]: [field === 'agent_id' ? b.agentId : b.campaignId] },
      },
    }),
    outcome: () => accepted((data) => expect((data as { totals: { calls: number } }).totals.calls).toBe(0)),
  })),
};

const AGENT_PAGE_KEY_REFUSED = refused(
  400,
  'VALIDATION_FAILED',
  'pagination_key must be an agent_id from the previous page',
);

/** A number on Beta's do-not-call list goes on Alpha's own list too; Beta's entry stays as it is. */
const doNotCallAddProbe: Probe = {
  fills: ['phone_numbers'],
  request: async (_a, b) => {
    const number = betaNumber();
    await addDoNotCall(api.deps, { accountId: b.accountId, phone_numbers: [number] });
    return { input: { phone_numbers: [number] } };
  },
  outcome: () => accepted((data) => expect(data).toEqual({ added: 1, already_listed: 0 })),
};

const DO_NOT_CALL_NOT_FOUND: NotFound = ['NOT_FOUND', 'Number is not on the do-not-call list'];
const doNotCallRemove = onResource(
  'phone_number',
  (r) => ({ phone_number: r.doNotCallNumber }),
  DO_NOT_CALL_NOT_FOUND,
);
const createAgentRequest = () => ({ input: { name: 'Matrix agent', prompt: 'Be brief.' } });
/** A webhook sent back by id keeps its secret: only one of the agent's own, never another account's. */
const webhookIdProbe = (extra: (a: Resources) => object): Probe => ({
  fills: ['webhooks[].id'],
  request: (a, b) => ({
    input: { ...extra(a), webhooks: [{ id: b.webhookId, name: 'hook', url: 'https://hooks.example/x' }] },
  }),
  outcome: () =>
    refused(400, 'VALIDATION_FAILED', "webhooks[0].id must be the id of one of the agent's webhooks"),
});

const addPhoneNumberPlan: Plan = {
  request: () => ({ input: { phone_number: alphaNumber() } }),
  probes: [
    {
      // Another account's Twilio connection is not found: a number is added through one's own only.
      fills: ['carrier_connection_id'],
      request: (_a, b) => ({
        input: { phone_number: alphaNumber(), carrier_connection_id: b.carrierConnectionId },
      }),
      outcome: () => refused(404, ...CARRIER_CONNECTION_NOT_FOUND),
    },
    {
      // A number belongs to one account at most, so registering Beta's is a conflict.
      fills: ['phone_number'],
      request: (_a, b) => ({ input: { phone_number: b.phoneNumber } }),
      outcome: (_a, b) => refused(409, 'CONFLICT', `Phone number ${b.phoneNumber} is already registered`),
    },
  ],
};

const REST_PLANS: Record<string, Plan> = {
  createAgent: { request: createAgentRequest },
  listAgents: {
    probes: [
      {
        fills: ['pagination_key'],
        request: (_a, b) => ({ query: { pagination_key: b.agentId } }),
        outcome: () => AGENT_PAGE_KEY_REFUSED,
      },
    ],
  },
  modifyAgent: { request: () => ({ input: { name: 'Renamed' } }), probes: [webhookIdProbe(() => ({}))] },
  duplicateAgent: { request: () => ({ input: { agent_name: 'Copy' } }) },
  dialCall: {
    request: (own) => ({ input: dialInput(own) }),
    probes: dialProbes(
      (request, key) => ({ ...request, headers: { 'idempotency-key': key } }),
      'Idempotency-Key',
    ),
  },
  createPhoneCall: {
    request: (own) => ({ input: dialInput(own) }),
    probes: dialProbes(
      (request, key) => ({ ...request, headers: { 'idempotency-key': key } }),
      'Idempotency-Key',
    ),
  },
  createWebCall: webCallPlan,
  listCalls: { probes: callListProbes({ calls: [], total_count: 0 }) },
  callAnalytics: analyticsPlan,
  listCallsOlder: { probes: callListProbes([]) },
  // Only the header: none of Beta's calls is exported.
  exportCalls: { probes: callListProbes(`${CALL_EXPORT_HEADER}\n`) },
  updateCall: { request: () => ({ input: { metadata: { note: 'matrix' } } }) },
  createCampaign: {
    request: (own) => ({ input: campaignInput(own.agentId, own.phoneNumber, alphaNumber()) }),
    probes: campaignProbes(
      (request, key) => ({ ...request, headers: { 'idempotency-key': key } }),
      'Idempotency-Key',
    ),
  },
  addCampaignContacts: { request: () => ({ input: { contacts: [{ to_number: alphaNumber() }] } }) },
  addDoNotCall: {
    request: () => ({ input: { phone_numbers: [alphaNumber()] } }),
    probes: [doNotCallAddProbe],
  },
  removeDoNotCall: doNotCallRemove,
  createCarrierConnection: { request: () => ({ input: newTwilioAccount() }) },
  updateCarrierConnection: { request: (own) => ({ input: { auth_token: own.carrierAuthToken } }) },
  addPhoneNumber: addPhoneNumberPlan,
  assignPhoneNumber: {
    request: (own) => ({ input: { agent_id: own.agentId } }),
    probes: [
      {
        fills: ['agent_id'],
        request: (a, b) => ({
          input: { agent_id: b.agentId },
          params: { phone_number: encodeURIComponent(a.phoneNumber) },
        }),
        outcome: () => refused(404, ...AGENT_NOT_FOUND),
      },
    ],
  },
  releasePhoneNumber: {
    request: (own) => ({ params: { phone_number: encodeURIComponent(own.spareNumber) } }),
  },
};

const campaignId = (r: Resources) => ({ campaign_id: r.campaignId });
const users = { usersOnly: true } as const;
const KNOWLEDGE_BASE_NOT_FOUND: NotFound = ['NOT_FOUND', 'Knowledge base not found'];
const onFlowAgent = (extra: (r: Resources) => Record<string, unknown> = () => ({})) =>
  onResource('agent_id', (r) => ({ agent_id: r.flowAgentId, ...extra(r) }), AGENT_NOT_FOUND, users);
const onKnowledgeBase = (field: string, input: (r: Resources) => Record<string, unknown>) =>
  onResource(field, input, KNOWLEDGE_BASE_NOT_FOUND, users);
/** A flow agent's new blank flow. */
const newFlowInput = () => ({
  name: 'Matrix flow',
  language: 'en',
  voice: 'Ori',
  welcome_message: '',
  variables_provided: [],
  variables_extracted: [],
  template: 'blank',
});
/** A search or a setting naming Beta's knowledge bases finds and sets nothing of Beta's. */
const knowledgeIdsProbe = (
  input: (a: Resources, ids: string[]) => Record<string, unknown>,
  outcome: Outcome,
): Probe => ({
  fills: ['knowledge_base_ids'],
  request: (a, b) => ({ input: input(a, [b.knowledgeBaseId]) }),
  outcome: () => outcome,
});

const TRPC_PLANS: Record<string, Plan> = {
  'agents.create': { request: createAgentRequest },
  'agents.list': {
    probes: [
      {
        fills: ['pagination_key'],
        request: (_a, b) => ({ input: { pagination_key: b.agentId } }),
        outcome: () => AGENT_PAGE_KEY_REFUSED,
      },
    ],
  },
  'agents.get': onResource('agent_id', (r) => ({ agent_id: r.agentId }), AGENT_NOT_FOUND),
  'agents.callHandling': onResource('agent_id', (r) => ({ agent_id: r.agentId }), AGENT_NOT_FOUND),
  'agents.latency': onResource('agent_id', (r) => ({ agent_id: r.agentId }), AGENT_NOT_FOUND),
  'agents.startTest': onResource(
    'agent_id',
    (r) => ({ agent_id: r.agentId, scenarios: TEST_SCENARIOS }),
    AGENT_NOT_FOUND,
  ),
  'agents.tests': onResource('agent_id', (r) => ({ agent_id: r.agentId }), AGENT_NOT_FOUND),
  'agents.test': onResource('run_id', (r) => ({ run_id: r.testRunId }), ['NOT_FOUND', 'Test run not found']),
  'agents.conversationSettings': onResource(
    'agent_id',
    (r) => ({ agent_id: r.agentId }),
    AGENT_NOT_FOUND,
    users,
  ),
  'agents.setConversationSettings': onResource(
    'agent_id',
    (r) => ({ agent_id: r.agentId, interruption_sensitivity: 0.7 }),
    AGENT_NOT_FOUND,
    users,
  ),
  'agents.modify': withProbe(
    onResource('agent_id', (r) => ({ agent_id: r.agentId, name: 'Renamed' }), AGENT_NOT_FOUND),
    webhookIdProbe((a) => ({ agent_id: a.agentId })),
  ),
  'agents.duplicate': onResource(
    'agent_id',
    (r) => ({ agent_id: r.agentId, agent_name: 'Copy' }),
    AGENT_NOT_FOUND,
  ),
  'apiKeys.create': { request: () => ({ input: { name: 'matrix' } }) },
  'apiKeys.revoke': onResource('id', (r) => ({ id: r.apiKeyId }), ['API_KEY_NOT_FOUND', 'API key not found']),
  'calls.dial': {
    request: (own) => ({ input: dialInput(own) }),
    probes: dialProbes(
      (request, key) => ({ input: { ...(request.input as object), idempotency_key: key } }),
      'idempotency_key',
    ),
  },
  'calls.createWeb': webCallPlan,
  'calls.get': onResource('call_id', (r) => ({ call_id: r.callId }), CALL_NOT_FOUND),
  'calls.timeline': onResource('call_id', (r) => ({ call_id: r.callId }), CALL_NOT_FOUND),
  'calls.latency': onResource('call_id', (r) => ({ call_id: r.callId }), CALL_NOT_FOUND),
  'calls.list': { probes: callListProbes({ calls: [], total_count: 0 }) },
  'analytics.calls': analyticsPlan,
  'account.get': users,
  'account.update': { ...users, request: () => ({ input: { time_zone: 'UTC' } }) },
  'calls.updateMetadata': onResource(
    'call_id',
    (r) => ({ call_id: r.callId, metadata: { note: 'matrix' } }),
    CALL_NOT_FOUND,
  ),
  'calls.delete': onResource('call_id', (r) => ({ call_id: r.callId }), CALL_NOT_FOUND, users),
  'calls.functionInvocations': onResource('call_id', (r) => ({ call_id: r.callId }), CALL_NOT_FOUND, users),
  'calls.cutEntries': onResource('call_id', (r) => ({ call_id: r.callId }), CALL_NOT_FOUND, users),
  'calls.turnEvents': onResource('call_id', (r) => ({ call_id: r.callId }), CALL_NOT_FOUND, users),
  'flows.templates': users,
  'flows.create': { ...users, request: () => ({ input: newFlowInput() }) },
  'flows.get': onFlowAgent(),
  'flows.validate': onFlowAgent(() => ({ flow: APPOINTMENT_FLOW })),
  'flows.saveDraft': onFlowAgent(() => ({ flow: APPOINTMENT_FLOW })),
  'flows.publish': onFlowAgent(),
  'flows.export': onFlowAgent(),
  'flows.testWebCall': onFlowAgent(() => ({ flow: APPOINTMENT_FLOW })),
  'flows.testTurn': onFlowAgent(() => ({ flow: APPOINTMENT_FLOW, dialogue: [], state: null, text: null })),
  'knowledge.list': users,
  'knowledge.create': { ...users, request: () => ({ input: { name: 'Matrix facts', language: 'en' } }) },
  'knowledge.delete': onKnowledgeBase('id', (r) => ({ id: r.knowledgeBaseId })),
  'knowledge.addDocument': onKnowledgeBase('knowledge_base_id', (r) => ({
    knowledge_base_id: r.knowledgeBaseId,
    name: 'more.txt',
    content_type: 'text/plain',
    data_base64: Buffer.from('Open on Mondays.').toString('base64'),
  })),
  'knowledge.deleteDocument': {
    ...users,
    request: (own) => ({ input: { knowledge_base_id: own.knowledgeBaseId, document_id: own.documentId } }),
    probes: [
      {
        fills: ['knowledge_base_id'],
        request: (a, b) => ({ input: { knowledge_base_id: b.knowledgeBaseId, document_id: a.documentId } }),
        outcome: () => refused(404, ...KNOWLEDGE_BASE_NOT_FOUND),
      },
      {
        fills: ['document_id'],
        request: (a, b) => ({ input: { knowledge_base_id: a.knowledgeBaseId, document_id: b.documentId } }),
        outcome: () => refused(404, 'NOT_FOUND', 'Document not found'),
      },
    ],
  },
  'knowledge.search': {
    ...users,
    request: (own) => ({ input: { knowledge_base_ids: [own.knowledgeBaseId], query: 'parking' } }),
    probes: [
      knowledgeIdsProbe(
        (_a, ids) => ({ knowledge_base_ids: ids, query: 'parking' }),
        accepted((data) => expect(data).toEqual([])),
      ),
    ],
  },
  'knowledge.agent': onResource('agent_id', (r) => ({ agent_id: r.agentId }), AGENT_NOT_FOUND, users),
  'knowledge.setAgent': {
    ...users,
    request: (own) => ({ input: { agent_id: own.agentId, knowledge_base_ids: [own.knowledgeBaseId] } }),
    probes: [
      {
        fills: ['agent_id'],
        request: (a, b) => ({ input: { agent_id: b.agentId, knowledge_base_ids: [a.knowledgeBaseId] } }),
        outcome: () => refused(404, ...AGENT_NOT_FOUND),
      },
      knowledgeIdsProbe(
        (a, ids) => ({ agent_id: a.agentId, knowledge_base_ids: ids }),
        refused(404, ...KNOWLEDGE_BASE_NOT_FOUND),
      ),
    ],
  },
  'calls.hangup': onResource('call_id', (r) => ({ call_id: r.callId }), CALL_NOT_FOUND),
  'calls.cost': onResource('call_id', (r) => ({ call_id: r.callId }), CALL_NOT_FOUND),
  'calls.campaign': onResource('call_id', (r) => ({ call_id: r.callId }), CALL_NOT_FOUND),
  'calls.analysis': onResource('call_id', (r) => ({ call_id: r.callId }), CALL_NOT_FOUND),
  'calls.reanalyze': onResource('call_id', (r) => ({ call_id: r.endedCallId }), CALL_NOT_FOUND, users),
  'calls.transfer': onResource('call_id', (r) => ({ call_id: r.callId }), CALL_NOT_FOUND),
  'calls.testContacts.add': {
    request: () => ({ input: { phone_number: alphaNumber() } }),
    probes: [
      {
        // Test contacts are per account: Beta's number becomes a test contact of Alpha's own.
        fills: ['phone_number'],
        request: async (_a, b) => {
          const number = betaNumber();
          await addTestContact(api.deps, { accountId: b.accountId, phone_number: number });
          return { input: { phone_number: number } };
        },
        outcome: () =>
          accepted((data, request) => expect(data).toMatchObject(request.input as Record<string, unknown>)),
      },
    ],
  },
  'calls.testContacts.remove': onResource('phone_number', (r) => ({ phone_number: r.testContactNumber }), [
    'NOT_FOUND',
    'Test contact not found',
  ]),
  'campaigns.create': {
    request: (own) => ({ input: campaignInput(own.agentId, own.phoneNumber, alphaNumber()) }),
    probes: campaignProbes(
      (request, key) => ({ input: { ...(request.input as object), idempotency_key: key } }),
      'idempotency_key',
    ),
  },
  'campaigns.get': onResource('campaign_id', campaignId, CAMPAIGN_NOT_FOUND),
  'campaigns.watch': onResource('campaign_id', campaignId, CAMPAIGN_NOT_FOUND),
  'campaigns.history': onResource('campaign_id', campaignId, CAMPAIGN_NOT_FOUND),
  'campaigns.checkContacts': {
    request: (own) => ({
      input: { contacts: [{ to_number: alphaNumber() }, { to_number: own.doNotCallNumber }] },
    }),
    probes: [
      {
        // Beta's do-not-call list is Beta's: its numbers are plain numbers to Alpha.
        fills: ['contacts'],
        request: (_a, b) => ({ input: { contacts: [{ to_number: b.doNotCallNumber }] } }),
        outcome: () =>
          accepted((data) => expect(data).toEqual({ accepted: 1, skipped_dnc: 0, rejected: [] })),
      },
    ],
  },
  'campaigns.pause': onResource('campaign_id', campaignId, CAMPAIGN_NOT_FOUND),
  'campaigns.resume': onResource('campaign_id', campaignId, CAMPAIGN_NOT_FOUND),
  'campaigns.cancel': onResource('campaign_id', campaignId, CAMPAIGN_NOT_FOUND),
  'campaigns.contacts.add': onResource(
    'campaign_id',
    (r) => ({ ...campaignId(r), contacts: [{ to_number: alphaNumber() }] }),
    CAMPAIGN_NOT_FOUND,
  ),
  'campaigns.contacts.list': onResource('campaign_id', campaignId, CAMPAIGN_NOT_FOUND),
  'campaigns.contacts.stuck': onResource('campaign_id', campaignId, CAMPAIGN_NOT_FOUND),
  'doNotCall.add': {
    request: () => ({ input: { phone_numbers: [alphaNumber()] } }),
    probes: [doNotCallAddProbe],
  },
  'doNotCall.remove': doNotCallRemove,
  'voices.sample': { request: () => ({ input: { voice: 'Ori' } }) },
  'phoneNumbers.get': onResource(
    'phone_number',
    (r) => ({ phone_number: r.phoneNumber }),
    PHONE_NUMBER_NOT_FOUND,
  ),
  'carrierConnections.create': { request: () => ({ input: newTwilioAccount() }) },
  'carrierConnections.get': onResource(
    'carrier_connection_id',
    (r) => ({ carrier_connection_id: r.carrierConnectionId }),
    CARRIER_CONNECTION_NOT_FOUND,
  ),
  'carrierConnections.update': onResource(
    'carrier_connection_id',
    (r) => ({ carrier_connection_id: r.carrierConnectionId, fields: { auth_token: r.carrierAuthToken } }),
    CARRIER_CONNECTION_NOT_FOUND,
  ),
  'carrierConnections.delete': onResource(
    'carrier_connection_id',
    (r) => ({ carrier_connection_id: r.carrierConnectionId }),
    CARRIER_CONNECTION_NOT_FOUND,
  ),
  'phoneNumbers.add': addPhoneNumberPlan,
  'phoneNumbers.release': onResource(
    'phone_number',
    (r) => ({ phone_number: r.spareNumber }),
    PHONE_NUMBER_NOT_FOUND,
  ),
  'phoneNumbers.assign': {
    request: (own) => ({ input: { phone_number: own.phoneNumber, agent_id: own.agentId } }),
    probes: [
      {
        fills: ['phone_number'],
        request: (a, b) => ({ input: { phone_number: b.phoneNumber, agent_id: a.agentId } }),
        outcome: () => refused(404, ...PHONE_NUMBER_NOT_FOUND),
      },
      {
        fills: ['agent_id'],
        request: (a, b) => ({ input: { phone_number: a.phoneNumber, agent_id: b.agentId } }),
        outcome: () => refused(404, ...AGENT_NOT_FOUND),
      },
    ],
  },
  'webhooks.deliveries.list': {
    probes: [
      {
        fills: ['call_id'],
        request: (_a, b) => ({ input: { call_id: b.callId } }),
        outcome: () => accepted((data) => expect(data).toEqual([])),
      },
      {
        fills: ['agent_id'],
        request: (_a, b) => ({ input: { agent_id: b.agentId } }),
        outcome: () => accepted((data) => expect(data).toEqual([])),
      },
    ],
  },
  'webhooks.deliveries.get': onResource('delivery_id', (r) => ({ delivery_id: r.deliveryId }), [
    'NOT_FOUND',
    'Delivery not found',
  ]),
  'webhooks.deliveries.redeliver': onResource('delivery_id', (r) => ({ delivery_id: r.deliveryId }), [
    'NOT_FOUND',
    'Delivery not found',
  ]),
};

/**
 * Procedures that take no credential, each for the reason given: the dashboard's sign-in, which makes
 * the session cookie the other procedures accept (the dashboard's end-to-end suite covers them).
 */
const PUBLIC_PROCEDURES: Record<string, string> = {
  'session.signIn': 'takes an email and password and answers 401 for any wrong pair, locking out after five',
  'session.get': 'answers 401 unless the request carries a live session cookie',
  'session.signOut': 'ends the session of the cookie it carries (with its CSRF token), if any',
};
const PROCEDURES = Object.fromEntries(
  Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: ProcedureDef }>).filter(
    ([path]) => !(path in PUBLIC_PROCEDURES),
  ),
);

const ENDPOINTS: Endpoint[] = [
  ...restRoutes.map(restEndpoint),
  ...Object.entries(PROCEDURES).map(([path, procedure]) => trpcEndpoint(path, procedure._def)),
];

const CREDENTIAL_CASES: { case: string; authorizations(): (string | undefined)[] }[] = [
  { case: 'no credential', authorizations: () => [undefined] },
  {
    case: 'malformed credential',
    authorizations: () => [
      alphaKey,
      `Basic ${alphaKey}`,
      `Bearer ${alphaKey} ${alphaKey}`,
      'Bearer',
      'Bearer not-a-key-or-a-token',
    ],
  },
  { case: 'unknown API key', authorizations: () => [`Bearer ${generateApiKey()}`] },
  { case: 'revoked API key', authorizations: () => [`Bearer ${revokedKey}`] },
  { case: 'expired dashboard JWT', authorizations: () => [`Bearer ${expiredToken}`] },
];

const UNAUTHORIZED: Refusal = { status: 401, appCode: 'UNAUTHORIZED', message: 'Unauthorized' };

function expectOutcome(endpoint: Endpoint, res: Response, outcome: Outcome, request: Request) {
  if ('refused' in outcome) {
    expect({ status: res.status, body: res.json }).toEqual({
      status: outcome.refused.status,
      body: endpoint.errorBody(outcome.refused),
    });
  } else {
    expect(res.status, res.text).toBe(endpoint.successStatus);
    outcome.accepted(endpoint.dataOf(res), request);
  }
}

const alphaCredential = (endpoint: Endpoint) => `Bearer ${endpoint.plan.usersOnly ? alphaToken : alphaKey}`;

beforeAll(async () => {
  api = await startTestApi({ core: { workflows: startsNothing } });
  twilioEmulator = await startTwilioEmulator();
  api.deps.config.twilioApiBaseUrl = twilioEmulator.url;
  const alphaAccount = await createAccount(api.deps, { name: 'Alpha Ltd' });
  const betaAccount = await createAccount(api.deps, { name: BETA_NAME });
  alphaKey = alphaAccount.key;
  alpha = await createResources(alphaAccount.account.id, alphaNumber);
  beta = await createResources(betaAccount.account.id, betaNumber);
  // Ended calls, so there are recordings behind signed links.
  await runCallToEnd(api.deps, alpha.callId);
  await runCallToEnd(api.deps, beta.callId);

  const user = await createUser(api.deps, { accountId: alpha.accountId, email: 'ops@alpha.example' });
  const claims = { userId: user.id, accountId: alpha.accountId };
  alphaToken = await signUserToken(TEST_JWT_SECRET, claims);
  expiredToken = await signUserToken(TEST_JWT_SECRET, claims, {
    expiresInSeconds: 60,
    now: new Date(Date.now() - 3_600_000),
  });
  await createUser(api.deps, { accountId: beta.accountId, email: 'ops@beta.example' });
  const revoked = await createApiKey(api.deps, { accountId: alpha.accountId, name: 'revoked' });
  await revokeApiKey(api.deps, { accountId: alpha.accountId, apiKeyId: revoked.apiKey.id });
  revokedKey = revoked.key;
});
afterAll(async () => {
  await api?.close();
  await twilioEmulator?.close();
});

describe('the matrix covers every endpoint', () => {
  it('names each endpoint once, as plans are keyed by name', () => {
    expect(new Set(ENDPOINTS.map((e) => e.name)).size).toBe(ENDPOINTS.length);
  });

  it.each(ENDPOINTS)('$name has a request Alpha may make', (endpoint) => {
    if (!endpoint.plan.request)
      expect(endpoint.acceptsNoInput, `${endpoint.name} needs input: give it a plan with a request`).toBe(
        true,
      );
  });

  it.each(ENDPOINTS)("$name names no resource the matrix cannot fill with another account's", (endpoint) => {
    const filled = new Set(endpoint.probes.flatMap((probe) => probe.fills));
    const unfilled = resourceInputs(endpoint).filter((input) => !filled.has(input));
    expect(
      unfilled,
      `${endpoint.name} takes ${unfilled.join(', ')}: fill it with Beta's in a probe (a path parameter: in PATH_PARAMS)`,
    ).toEqual([]);
  });

  it('leaves out only public procedures that exist, and session.get refuses a request without a session', async () => {
    const all = appRouter._def.procedures as Record<string, unknown>;
    expect(Object.keys(PUBLIC_PROCEDURES).filter((path) => !(path in all))).toEqual([]);
    const res = await http(`${api.url}/trpc/session.get`, { key: alphaKey });
    expect(res.status).toBe(401);
  });

  it('has no plan for an endpoint that no longer exists', () => {
    const names = new Set(ENDPOINTS.map((e) => e.name));
    expect(
      [...Object.keys(REST_PLANS), ...Object.keys(TRPC_PLANS)].filter((name) => !names.has(name)),
    ).toEqual([]);
  });
});

describe('credentials', () => {
  let before: unknown;
  beforeAll(async () => {
    before = await Promise.all([accountRows(alpha.accountId), accountRows(beta.accountId)]);
  });

  describe.each(ENDPOINTS)('$name', (endpoint) => {
    it.each(CREDENTIAL_CASES)('$case → 401', async ({ authorizations }) => {
      const request = requestOf(endpoint.plan, alpha);
      for (const authorization of authorizations()) {
        const res = await endpoint.send(alpha, request, authorization);
        expect({ authorization, status: res.status, body: res.json }).toEqual({
          authorization,
          status: 401,
          body: endpoint.errorBody(UNAUTHORIZED),
        });
        if (endpoint.challenge) expect(res.headers.get('www-authenticate')).toBe(endpoint.challenge);
      }
    });
  });

  it('changed nothing in either account', async () => {
    expect(await Promise.all([accountRows(alpha.accountId), accountRows(beta.accountId)])).toEqual(before);
  });
});

describe("another account's resources", () => {
  describe.each(ENDPOINTS)('$name', (endpoint) => {
    it("works on Alpha's own resources and shows nothing of Beta's", async () => {
      const own = await createResources(alpha.accountId, alphaNumber);
      const request = requestOf(endpoint.plan, own);
      const betaBefore = await accountRows(beta.accountId);
      if (endpoint.plan.usersOnly) {
        const byKey = await endpoint.send(own, request, `Bearer ${alphaKey}`);
        expectOutcome(
          endpoint,
          byKey,
          refused(403, undefined, 'This operation is available to dashboard users only'),
          request,
        );
      }
      const res = await endpoint.send(own, request, alphaCredential(endpoint));
      expect(res.status, res.text).toBe(endpoint.successStatus);
      await expectNothingOfBeta(betaBefore, res, request);
      expect(await accountRows(beta.accountId)).toEqual(betaBefore);
    });

    for (const probe of endpoint.probes) {
      it(`Beta's ${probe.fills.join(', ')}: refused or kept to Alpha, Beta unchanged`, async () => {
        const request = await probe.request(alpha, beta);
        const betaBefore = await accountRows(beta.accountId);
        const res = await endpoint.send(alpha, request, alphaCredential(endpoint));
        expectOutcome(endpoint, res, probe.outcome(alpha, beta), request);
        await expectNothingOfBeta(betaBefore, res, request);
        expect(await accountRows(beta.accountId)).toEqual(betaBefore);
      });
    }
  });
});

/** Routes outside `restRoutes` and the app router, each public on purpose for the reason given. */
const PUBLIC_ROUTES: Record<string, string> = {
  'GET /healthz':
    'probed by load balancers without credentials; says only whether the database and Temporal answer',
  'GET /metrics': 'scraped by Prometheus without credentials; labels are route templates, never ids',
  'GET /openapi.json': 'describes the public API; holds no account data',
  'GET /app':
    "the dashboard's static files (here: a note that it is not built); its data comes through /trpc with a session",
  'GET /recordings/:call_id': "the link's signature is the credential (spec 2.3: signed URL, valid 1 hour)",
  'POST /carrier/twilio/status/:call_id':
    "Twilio's callbacks carry no API key: X-Twilio-Signature is the credential, checked before anything is read (carrier-callbacks.test.ts)",
  'POST /carrier/twilio/status':
    "a Twilio number's own status callback (incoming calls), found by its CallSid: signed, checked like the others (telephony suite)",
  'POST /carrier/twilio/voice':
    "the voice webhook of the service's numbers (incoming calls): X-Twilio-Signature is the credential, checked before anything is read (telephony suite)",
  'POST /carrier/twilio/machine-detection/:call_id':
    "Twilio's answering machine detection result: signed like its status callbacks, checked the same way (carrier-callbacks.test.ts)",
  'POST /carrier/twilio/transfer-status/:transfer_id':
    "a warm transfer's call to the colleague: signed like a call's status callbacks, checked before anything is read (telephony suite, conversation.test.ts)",
};
const TRPC_ROUTE = '/trpc/:path';

/** Every method and URL the server serves, read back from Fastify's route tree. */
function servedRoutes(): string[] {
  const routes: string[] = [];
  const parents: string[] = [];
  for (const line of api.server.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│├└─ ]*)(\S.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const url = (parents[depth - 1] ?? '') + match[2]!;
    parents[depth] = url;
    // HEAD is Fastify's automatic twin of each GET, through the same hooks.
    for (const method of match[3]?.split(', ') ?? []) if (method !== 'HEAD') routes.push(`${method} ${url}`);
  }
  return routes;
}

describe('other routes the server registers', () => {
  it('are each REST, tRPC, removed, or public on purpose', () => {
    const served = servedRoutes();
    const rest = restRoutes.map((route) => `${route.method} ${toFastifyPath(route.path)}`);
    const removed = REMOVED_OPERATIONS.map(({ method, path }) => `${method} ${toFastifyPath(path)}`);
    expect(served).toEqual(expect.arrayContaining([...rest, ...removed, ...Object.keys(PUBLIC_ROUTES)]));
    const unexplained = served.filter(
      (route) =>
        !rest.includes(route) &&
        !removed.includes(route) &&
        !(route in PUBLIC_ROUTES) &&
        route.split(' ')[1] !== TRPC_ROUTE,
    );
    expect(unexplained, 'routes that are neither in the matrix nor public on purpose').toEqual([]);
  });

  it.each(REMOVED_OPERATIONS)(
    'removed $method $path is 404 whatever the credential (spec 4.3)',
    async (op) => {
      const url = `${api.url}${op.path.replace(/\{\w+\}/, alpha.callId)}`;
      const authorizations = [...CREDENTIAL_CASES.flatMap((c) => c.authorizations()), `Bearer ${alphaKey}`];
      for (const authorization of authorizations) {
        const res = await http(url, { method: op.method, headers: withAuthorization({}, authorization) });
        expect({ authorization, status: res.status, body: res.json }).toEqual({
          authorization,
          status: 404,
          body: { error: 'Not found' },
        });
      }
    },
  );

  it('GET /healthz answers without credentials', async () => {
    const res = await http(`${api.url}/healthz`);
    expect({ status: res.status, body: res.json }).toEqual({
      status: 200,
      body: { status: 'ok', checks: { database: 'ok', temporal: 'ok' } },
    });
  });

  it('GET /openapi.json answers without credentials and holds no account data', async () => {
    const res = await http(`${api.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ openapi: expect.stringMatching(/^3\./), paths: expect.any(Object) });
    await expectNothingOfBeta(await accountRows(beta.accountId), res, {});
  });

  describe('GET /recordings/:call_id', () => {
    const linkOf = async (r: Resources) => {
      const call = await getCall(api.deps, { accountId: r.accountId, callId: r.callId });
      const url = new URL(call.recording_url!);
      return {
        callId: r.callId,
        expires: url.searchParams.get('expires')!,
        signature: url.searchParams.get('signature')!,
      };
    };
    const fetchRecording = (callId: string, query: Record<string, string>, authorization?: string) =>
      http(`${api.url}/recordings/${callId}?${new URLSearchParams(query)}`, {
        headers: withAuthorization({}, authorization),
      });
    const INVALID = { status: 403, body: { error: 'The recording link is invalid or has expired' } };

    it('serves a signed link without credentials', async () => {
      const { callId, ...query } = await linkOf(beta);
      const res = await fetchRecording(callId, query);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('audio/wav');
    });

    it('refuses a missing, tampered or expired signature, whatever the credential', async () => {
      const { callId, expires, signature } = await linkOf(alpha);
      const betaLink = await linkOf(beta);
      const refusedRequests: [string, Record<string, string>, string | undefined][] = [
        [callId, {}, `Bearer ${alphaKey}`],
        [callId, { expires }, `Bearer ${alphaToken}`],
        // Beta's valid signature does not open Alpha's call.
        [callId, { expires: betaLink.expires, signature: betaLink.signature }, undefined],
        [callId, { expires: String(Number(expires) + 60), signature }, `Bearer ${alphaKey}`],
        [callId, { expires: String(Math.floor(Date.now() / 1000) - 1), signature }, undefined],
      ];
      for (const [id, query, authorization] of refusedRequests) {
        const res = await fetchRecording(id, query, authorization);
        expect({ query, status: res.status, body: res.json }).toEqual({ query, ...INVALID });
      }
    });
  });

  it('GET /metrics answers without credentials and names no account, resource or number', async () => {
    const res = await http(`${api.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('http_requests_total');
    const rows = await Promise.all([accountRows(alpha.accountId), accountRows(beta.accountId)]);
    const names = ['Alpha Ltd', BETA_NAME];
    expect([...identifiersIn(rows), ...names].filter((id) => res.text.includes(id))).toEqual([]);
  });
});
