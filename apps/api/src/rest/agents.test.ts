import {
  AgentListOutput,
  AgentView,
  OlderAgentFullView,
  OlderAgentListItem,
  OlderAgentView,
  createFlowAgent,
  openWebhookSecrets,
} from '@voice/core';
import { fakeResolver } from '@voice/core/testing';
import { createCaller } from '@voice/trpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, seedAccount, startTestApi, type TestApi } from '../../test/harness';

const AGENT_FIELDS = [
  'active',
  'agent_id',
  'agent_type',
  'created_at',
  'language',
  'name',
  'prompt',
  'updated_at',
  'variables_extracted',
  'variables_provided',
  'voice',
  'webhooks',
  'welcome_message',
];
const OLDER_COMMON = [
  'agent_id',
  'agent_name',
  'agent_prompt',
  'agent_type',
  'begin_message',
  'begin_message_mode',
  'deployed_at',
  'language',
  'notification_emails',
  'prompt_text_direction',
  'version',
  'voice_id',
];
const OLDER_GET_FIELDS = [
  ...OLDER_COMMON,
  'account_id',
  'account_name',
  'vars_extracted',
  'vars_provided',
].sort();
const OLDER_FULL_FIELDS = [...OLDER_COMMON, 'account', 'vars_extracted', 'vars_provided'].sort();
const OLDER_LIST_FIELDS = [
  ...OLDER_COMMON,
  'account',
  'end_call_condition',
  'end_call_enabled',
  'is_operating_hours_active',
  'operating_hours',
  'transfer_call_destination',
  'transfer_call_enabled',
].sort();

const SECRET = 'whsec_c2VjcmV0LXZhbHVlLW5ldmVyLXNob3du';
const HEADER_VALUE = 'header-value-never-shown-7f3a';

type Json = Record<string, unknown>;
const keysOf = (value: unknown) => Object.keys(value as Json).sort();

let api: TestApi;
let alpha: Awaited<ReturnType<typeof seedAccount>>;
let beta: Awaited<ReturnType<typeof seedAccount>>;
const responses: string[] = [];

beforeAll(async () => {
  api = await startTestApi({
    core: {
      resolveHost: fakeResolver({
        'internal.example': ['10.1.2.3'],
        'mixed.example': ['93.184.215.14', '192.168.0.5'],
        'metadata.example': ['169.254.169.254'],
      }),
    },
  });
  alpha = await seedAccount(api.deps, 'Alpha', ['+14155550100']);
  beta = await seedAccount(api.deps, 'Beta', ['+14155550102']);
});
afterAll(() => api.close());

async function call(path: string, init: Parameters<typeof http>[1] = {}) {
  const res = await http(`${api.url}${path}`, { key: alpha.key, ...init });
  responses.push(res.text);
  return res;
}

const fullAgent = {
  name: 'Appointment setter',
  prompt: 'You book dental appointments for {{clinic}}.',
  language: 'en',
  voice: 'Steve',
  welcome_message: 'Hi, this is the clinic.',
  variables_provided: [{ name: 'clinic', description: 'clinic name', default: 'Smile' }, { name: 'patient' }],
  variables_extracted: [{ name: 'slot', description: 'chosen time', required: true }, { name: 'notes' }],
  webhooks: [
    {
      name: 'CRM',
      url: 'https://crm.example/hooks/calls',
      secret: SECRET,
      headers: { 'X-Api-Key': HEADER_VALUE },
    },
    { name: 'Plain', url: 'https://plain.example/h' },
  ],
};

describe('agent shapes', () => {
  it('agent-create returns 201 and exactly the current Agent fields, with write-only webhook secrets', async () => {
    const res = await call('/functions/v1/agent-create', { method: 'POST', body: fullAgent });
    expect(res.status).toBe(201);
    expect(keysOf(res.json)).toEqual(AGENT_FIELDS);
    expect(res.json).toMatchObject({
      name: 'Appointment setter',
      language: 'en',
      voice: 'Steve',
      agent_type: 'singlePrompt',
      active: true,
      welcome_message: 'Hi, this is the clinic.',
      variables_provided: [
        { name: 'clinic', description: 'clinic name', default: 'Smile' },
        { name: 'patient', description: '', default: null },
      ],
      variables_extracted: [
        { name: 'slot', description: 'chosen time', required: true },
        { name: 'notes', description: '', required: false },
      ],
    });
    const webhooks = res.json.webhooks as Json[];
    expect(webhooks.map(keysOf)).toEqual([
      ['has_headers', 'has_secret', 'id', 'name', 'url'],
      ['has_headers', 'has_secret', 'id', 'name', 'url'],
    ]);
    expect(webhooks.map((w) => [w.name, w.has_secret, w.has_headers])).toEqual([
      ['CRM', true, true],
      ['Plain', false, false],
    ]);
    for (const field of ['created_at', 'updated_at'])
      expect(Date.parse(res.json[field] as string)).not.toBeNaN();
    // Types, field by field, through the same schema that documents the response.
    expect(() => AgentView.strict().parse(res.json)).not.toThrow();
  });

  it('agent-get, agent-list and the older operations return their exact field lists', async () => {
    const created = await call('/functions/v1/agent-create', { method: 'POST', body: fullAgent });
    const id = created.json.agent_id as string;

    const got = await call(`/functions/v1/agent-get/${id}`);
    expect(got.status).toBe(200);
    expect(got.json).toEqual(created.json);

    const list = await call('/functions/v1/agent-list');
    expect(keysOf(list.json)).toEqual(['agents', 'total_count']);
    expect(() => AgentListOutput.strict().parse(list.json)).not.toThrow();
    for (const agent of list.json.agents as Json[]) expect(keysOf(agent)).toEqual(AGENT_FIELDS);

    const older = await call(`/v1/get-agent/${id}`);
    expect(older.status).toBe(200);
    expect(keysOf(older.json)).toEqual(OLDER_GET_FIELDS);
    expect(() => OlderAgentView.strict().parse(older.json)).not.toThrow();
    expect(older.json).toMatchObject({
      agent_id: id,
      agent_name: 'Appointment setter',
      account_id: alpha.account.id,
      account_name: 'Alpha',
      voice_id: 'en-steve',
      language: 'en',
      begin_message: 'Hi, this is the clinic.',
      agent_prompt: fullAgent.prompt,
      begin_message_mode: 'static',
      prompt_text_direction: 'ltr',
      version: 1,
      agent_type: 'singlePrompt',
      notification_emails: [],
      vars_provided: [
        { name: 'clinic', type: 'string', default_value: 'Smile', description: 'clinic name' },
        { name: 'patient', type: 'string', default_value: null, description: '' },
      ],
      vars_extracted: [
        { name: 'slot', type: 'string', description: 'chosen time', required: true },
        { name: 'notes', type: 'string', description: '', required: false },
      ],
    });
    expect(typeof older.json.deployed_at).toBe('string');

    const olderList = await call('/v1/list-agents');
    expect(olderList.status).toBe(200);
    const item = (olderList.json as unknown as Json[]).find((a) => a.agent_id === id)!;
    expect(keysOf(item)).toEqual(OLDER_LIST_FIELDS);
    expect(() => OlderAgentListItem.strict().parse(item)).not.toThrow();
    expect(item).toMatchObject({
      account: { id: alpha.account.id, name: 'Alpha' },
      end_call_enabled: true,
      end_call_condition: '',
      transfer_call_enabled: false,
      transfer_call_destination: null,
      is_operating_hours_active: false,
      operating_hours: null,
    });
  });

  it('duplicate-agent copies everything at version 1, secrets kept server-side', async () => {
    const source = await call('/functions/v1/agent-create', { method: 'POST', body: fullAgent });
    const sourceId = source.json.agent_id as string;
    await call(`/functions/v1/agent-modify/${sourceId}`, {
      method: 'PATCH',
      body: { prompt: 'Changed prompt.' },
    });

    const copy = await call(`/v1/duplicate-agent/${sourceId}`, {
      method: 'POST',
      body: { agent_name: 'Setter copy' },
    });
    expect(copy.status).toBe(201);
    expect(keysOf(copy.json)).toEqual(OLDER_FULL_FIELDS);
    expect(() => OlderAgentFullView.strict().parse(copy.json)).not.toThrow();
    expect(copy.json).toMatchObject({
      agent_name: 'Setter copy',
      version: 1,
      agent_prompt: 'Changed prompt.',
      voice_id: 'en-steve',
    });
    expect(copy.json.agent_id).not.toBe(sourceId);
    expect(copy.json.vars_provided).toEqual((await call(`/v1/get-agent/${sourceId}`)).json.vars_provided);

    const copyCurrent = await call(`/functions/v1/agent-get/${copy.json.agent_id as string}`);
    expect(
      (copyCurrent.json.webhooks as Json[]).map((w) => [w.name, w.url, w.has_secret, w.has_headers]),
    ).toEqual([
      ['CRM', 'https://crm.example/hooks/calls', true, true],
      ['Plain', 'https://plain.example/h', false, false],
    ]);
    const stored = await api.deps.db.agentWebhook.findFirstOrThrow({
      where: { agentId: copy.json.agent_id as string, position: 0 },
    });
    // Stored sealed; the copy opens to the original values.
    expect(stored.secret).not.toContain(SECRET);
    expect(
      openWebhookSecrets(api.deps.config, {
        secret: stored.secret,
        headers: stored.headers as Record<string, string>,
      }),
    ).toEqual({
      secret: SECRET,
      headers: { 'X-Api-Key': HEADER_VALUE },
    });
  });
});

describe('agent-create validation', () => {
  const base = { name: 'Valid', prompt: 'Be brief.' };
  const hook = (url: string) => ({ ...base, webhooks: [{ name: 'hook', url }] });
  const cases: [string, unknown, RegExp][] = [
    ['missing name', { prompt: 'x' }, /^name is required$/],
    ['missing prompt', { name: 'x' }, /^prompt is required$/],
    ['empty name', { ...base, name: '  ' }, /^name: must not be empty$/],
    ['name of the wrong type', { ...base, name: 42 }, /^name: Invalid input: expected string/],
    ['unknown voice', { ...base, voice: 'Robo' }, /^Invalid voice "Robo"\. Valid voices: .*Ori.*Steve/],
    ['bad language', { ...base, language: 'english!' }, /^language: must be a language code/],
    [
      'bad variable name',
      { ...base, variables_provided: [{ name: '1st' }] },
      /^variables_provided\[0\]\.name: must be an identifier/,
    ],
    [
      'duplicate variable name',
      { ...base, variables_extracted: [{ name: 'a' }, { name: 'a' }] },
      /^variables_extracted\[1\]\.name: duplicates the variable name a$/,
    ],
    [
      'six webhooks',
      {
        ...base,
        webhooks: Array.from({ length: 6 }, (_, i) => ({ name: `h${i}`, url: 'https://a.example/' })),
      },
      /^webhooks: at most 5 webhooks per agent$/,
    ],
    [
      'webhook name too long',
      { ...base, webhooks: [{ name: 'n'.repeat(51), url: 'https://a.example/' }] },
      /^webhooks\[0\]\.name: must be at most 50 characters$/,
    ],
    ['webhook without url', { ...base, webhooks: [{ name: 'n' }] }, /^webhooks\[0\]\.url is required$/],
    ['plain http', hook('http://a.example/h'), /^webhooks\[0\] \("hook"\): url must use https$/],
    ['not a URL', hook('not a url'), /^webhooks\[0\] \("hook"\): url is not a valid URL$/],
    [
      'credentials in URL',
      hook('https://user:pw@a.example/h'),
      /^webhooks\[0\] \("hook"\): url must not contain credentials$/,
    ],
    [
      'eleven headers',
      {
        ...base,
        webhooks: [
          {
            name: 'h',
            url: 'https://a.example/',
            headers: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`X-H${i}`, 'v'])),
          },
        ],
      },
      /^webhooks\[0\]\.headers: at most 10 headers$/,
    ],
    ...[
      'Content-Type',
      'x-service-event',
      'X-SERVICE-SIGNATURE',
      'host',
      'Content-Length',
      'transfer-encoding',
    ].map((name): [string, unknown, RegExp] => [
      `reserved header ${name}`,
      { ...base, webhooks: [{ name: 'h', url: 'https://a.example/', headers: { [name]: HEADER_VALUE } }] },
      new RegExp(`^webhooks\\[0\\]\\.headers: header ${name} is reserved$`),
    ]),
    [
      'whsec_ secret that is not base64',
      { ...base, webhooks: [{ name: 'h', url: 'https://a.example/', secret: 'whsec_not base64!!' }] },
      /^webhooks\[0\]\.secret: a whsec_ secret must be whsec_ followed by base64/,
    ],
    [
      'header value with a line break',
      {
        ...base,
        webhooks: [
          { name: 'h', url: 'https://a.example/', headers: { 'X-A': `a\r\nX-Injected: ${HEADER_VALUE}` } },
        ],
      },
      /^webhooks\[0\]\.headers: header X-A has a value with a line break$/,
    ],
  ];
  const ssrf: [string, RegExp][] = [
    ['https://127.0.0.1/h', /127\.0\.0\.1 is a loopback address/],
    ['https://localhost/h', /localhost is a loopback name/],
    ['https://10.0.0.1/h', /10\.0\.0\.1 is a private address/],
    ['https://172.16.0.1/h', /172\.16\.0\.1 is a private address/],
    ['https://192.168.1.1/h', /192\.168\.1\.1 is a private address/],
    ['https://169.254.169.254/latest/meta-data', /169\.254\.169\.254 is a link-local address/],
    ['https://[::1]/h', /::1 is a loopback address/],
    ['https://[::ffff:127.0.0.1]/h', /::ffff:7f00:1 is a loopback address/],
    ['https://[fc00::1]/h', /fc00::1 is a unique-local address/],
    ['https://0.0.0.0/h', /0\.0\.0\.0 is an unspecified address/],
    ['https://100.64.0.1/h', /100\.64\.0\.1 is a carrier-grade NAT address/],
    ['https://2130706433/h', /127\.0\.0\.1 is a loopback address/],
    ['https://0x7f.1/h', /127\.0\.0\.1 is a loopback address/],
    ['https://[ff02::1]/h', /ff02::1 is a multicast address/],
    ['https://internal.example/h', /internal\.example resolves to 10\.1\.2\.3, which is a private address/],
    ['https://mixed.example/h', /mixed\.example resolves to 192\.168\.0\.5, which is a private address/],
    [
      'https://metadata.example/h',
      /metadata\.example resolves to 169\.254\.169\.254, which is a link-local address/,
    ],
  ];
  for (const [url, reason] of ssrf) {
    cases.push([
      `SSRF ${url}`,
      hook(url),
      new RegExp(`^webhooks\\[0\\] \\("hook"\\): url must point to a public address: ${reason.source}`),
    ]);
  }

  it.each(cases)(
    'rejects %s with 400, a message naming the field and the rule, and writes nothing',
    async (_name, body, message) => {
      const before = await api.deps.db.agent.count();
      const res = await call('/functions/v1/agent-create', { method: 'POST', body });
      expect(res.status).toBe(400);
      expect(keysOf(res.json)).toEqual(['message', 'status']);
      expect(res.json.status).toBe('error');
      expect(res.json.message).toMatch(message);
      expect(res.text).not.toContain(HEADER_VALUE);
      expect(await api.deps.db.agent.count()).toBe(before);
    },
  );

  it('rejects malformed JSON and oversize bodies in the same {status, message} shape', async () => {
    const malformed = await call('/functions/v1/agent-create', { method: 'POST', rawBody: '{"name":' });
    expect(malformed.status).toBe(400);
    expect(malformed.json).toEqual({ status: 'error', message: 'Request body is not valid JSON' });
    const huge = await call('/functions/v1/agent-create', {
      method: 'POST',
      body: { ...base, prompt: 'x'.repeat(1_100_000) },
    });
    expect(huge.status).toBe(413);
    expect(huge.json).toEqual({ status: 'error', message: 'Request body must be at most 1 MB' });
    const noKey = await http(`${api.url}/functions/v1/agent-create`, { method: 'POST', body: base });
    expect(noKey.status).toBe(401);
    expect(noKey.json).toEqual({ error: 'Unauthorized' });
  });

  it('stores a webhook whose host does not resolve now (a DNS outage must not block saving an agent)', async () => {
    const res = await call('/functions/v1/agent-create', {
      method: 'POST',
      body: { ...base, webhooks: [{ name: 'Later', url: 'https://not-yet.invalid/hook' }] },
    });
    expect(res.status).toBe(201);
    const stored = await api.deps.db.agentWebhook.findMany({
      where: { agentId: res.json.agent_id as string },
    });
    expect(stored.map((webhook) => webhook.url)).toEqual(['https://not-yet.invalid/hook']);
  });

  it('ignores unknown fields and applies the defaults', async () => {
    const res = await call('/functions/v1/agent-create', {
      method: 'POST',
      body: { ...base, colour: 'blue' },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ language: 'he', voice: 'Ori', welcome_message: '', webhooks: [] });
    expect(res.json).not.toHaveProperty('colour');
  });
});

describe('agent-modify', () => {
  it('changes only what is given, versions real changes, and keeps omitted webhooks', async () => {
    const created = await call('/functions/v1/agent-create', { method: 'POST', body: fullAgent });
    const id = created.json.agent_id as string;
    const version = async () => (await call(`/v1/get-agent/${id}`)).json.version;
    expect(await version()).toBe(1);

    const renamed = await call(`/functions/v1/agent-modify/${id}`, {
      method: 'PATCH',
      body: { name: 'Renamed', voice: 'Keren' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toMatchObject({ name: 'Renamed', voice: 'Keren', prompt: fullAgent.prompt });
    expect(renamed.json.webhooks).toEqual(created.json.webhooks);
    expect(Date.parse(renamed.json.updated_at as string)).toBeGreaterThan(
      Date.parse(created.json.updated_at as string),
    );
    expect(await version()).toBe(2);

    const same = await call(`/functions/v1/agent-modify/${id}`, {
      method: 'PATCH',
      body: { name: 'Renamed' },
    });
    expect(same.json.updated_at).toBe(renamed.json.updated_at);
    expect(await version()).toBe(2);

    const replaced = await call(`/functions/v1/agent-modify/${id}`, {
      method: 'PATCH',
      body: {
        variables_provided: [{ name: 'only' }],
        webhooks: [{ name: 'New', url: 'https://new.example/h' }],
      },
    });
    expect(replaced.json.variables_provided).toEqual([{ name: 'only', description: '', default: null }]);
    expect(replaced.json.variables_extracted).toEqual(created.json.variables_extracted);
    expect((replaced.json.webhooks as Json[]).map((w) => [w.name, w.has_secret])).toEqual([['New', false]]);
    expect(await version()).toBe(3);

    // A webhook disabled by a 410 comes back when the same list is sent again.
    await api.deps.db.agentWebhook.updateMany({
      where: { agentId: id },
      data: { enabled: false, disabledReason: '410' },
    });
    await call(`/functions/v1/agent-modify/${id}`, {
      method: 'PATCH',
      body: { webhooks: [{ name: 'New', url: 'https://new.example/h' }] },
    });
    expect(
      (await api.deps.db.agentWebhook.findMany({ where: { agentId: id } })).map((w) => w.enabled),
    ).toEqual([true]);

    const cleared = await call(`/functions/v1/agent-modify/${id}`, {
      method: 'PATCH',
      body: { webhooks: [] },
    });
    expect(cleared.json.webhooks).toEqual([]);
  });

  it('rejects invalid changes in the {status, message} shape and writes nothing', async () => {
    const created = await call('/functions/v1/agent-create', { method: 'POST', body: fullAgent });
    const id = created.json.agent_id as string;
    for (const body of [
      { voice: 'Nope' },
      { webhooks: [{ name: 'x', url: 'https://10.0.0.1/' }] },
      { prompt: '' },
    ]) {
      const res = await call(`/functions/v1/agent-modify/${id}`, { method: 'PATCH', body });
      expect(res.status).toBe(400);
      expect(res.json.status).toBe('error');
    }
    expect((await call(`/functions/v1/agent-get/${id}`)).json).toEqual(created.json);
  });

  it("keeps a webhook's id and write-only parts when it is sent back with its id", async () => {
    const created = await call('/functions/v1/agent-create', { method: 'POST', body: fullAgent });
    const id = created.json.agent_id as string;
    const [crm, plain] = created.json.webhooks as Json[];
    const stored = async () =>
      (await api.deps.db.agentWebhook.findMany({ where: { agentId: id }, orderBy: { position: 'asc' } })).map(
        (row) => ({
          id: row.id,
          name: row.name,
          url: row.url,
          ...openWebhookSecrets(api.deps.config, {
            secret: row.secret,
            headers: row.headers as Record<string, string>,
          }),
        }),
      );

    // Renamed and reordered by id: the CRM hook keeps its secret and header without sending them.
    const renamed = await call(`/functions/v1/agent-modify/${id}`, {
      method: 'PATCH',
      body: {
        webhooks: [
          { id: plain!.id, name: 'Plain', url: 'https://plain.example/h' },
          { id: crm!.id, name: 'CRM renamed', url: 'https://crm.example/v2' },
        ],
      },
    });
    expect(renamed.status).toBe(200);
    expect(await stored()).toEqual([
      { id: plain!.id, name: 'Plain', url: 'https://plain.example/h', secret: null, headers: {} },
      {
        id: crm!.id,
        name: 'CRM renamed',
        url: 'https://crm.example/v2',
        secret: SECRET,
        headers: { 'X-Api-Key': HEADER_VALUE },
      },
    ]);

    // null removes the secret, a new headers object replaces the old; a webhook without id is new.
    const changed = await call(`/functions/v1/agent-modify/${id}`, {
      method: 'PATCH',
      body: {
        webhooks: [
          {
            id: crm!.id,
            name: 'CRM renamed',
            url: 'https://crm.example/v2',
            secret: null,
            headers: { 'X-B': 'b' },
          },
          { name: 'Fresh', url: 'https://fresh.example/h' },
        ],
      },
    });
    expect(changed.status).toBe(200);
    const after = await stored();
    expect(after.map(({ id: _, ...rest }) => rest)).toEqual([
      { name: 'CRM renamed', url: 'https://crm.example/v2', secret: null, headers: { 'X-B': 'b' } },
      { name: 'Fresh', url: 'https://fresh.example/h', secret: null, headers: {} },
    ]);
    expect(after[0]!.id).toBe(crm!.id);

    // An id that is not this agent's, or one given twice, is refused and changes nothing.
    const other = await call('/functions/v1/agent-create', { method: 'POST', body: fullAgent });
    const otherHook = (other.json.webhooks as Json[])[0]!.id;
    for (const [webhooks, message] of [
      [
        [{ id: otherHook, name: 'x', url: 'https://x.example/' }],
        "webhooks[0].id must be the id of one of the agent's webhooks",
      ],
      [
        [
          { id: crm!.id, name: 'a', url: 'https://a.example/' },
          { id: crm!.id, name: 'b', url: 'https://b.example/' },
        ],
        'webhooks[1].id is given twice',
      ],
    ] as const) {
      const res = await call(`/functions/v1/agent-modify/${id}`, { method: 'PATCH', body: { webhooks } });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ status: 'error', message });
    }
    expect(await stored()).toEqual(after);
  });

  it('refuses to create a flow agent with 422, and creates nothing', async () => {
    const before = await api.deps.db.agent.count();
    const res = await call('/functions/v1/agent-create', {
      method: 'POST',
      body: { name: 'Flow bot', prompt: 'Be brief.', agent_type: 'conversationalFlow' },
    });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      status: 'error',
      message:
        'Only singlePrompt agents can be created through the API; conversationalFlow agents are built in the dashboard',
    });
    expect(await api.deps.db.agent.count()).toBe(before);
    // Asked for by name, a prompt agent is created as without it; an unknown type is a 400.
    const prompt = await call('/functions/v1/agent-create', {
      method: 'POST',
      body: { name: 'Prompt bot', prompt: 'Be brief.', agent_type: 'singlePrompt' },
    });
    expect(prompt.status).toBe(201);
    expect(prompt.json.agent_type).toBe('singlePrompt');
    const unknown = await call('/functions/v1/agent-create', {
      method: 'POST',
      body: { name: 'Odd bot', prompt: 'Be brief.', agent_type: 'robot' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.message).toMatch(/^agent_type: /);
  });

  it('refuses flow agents with 422, while reads work and never show flow internals', async () => {
    const flow = await createFlowAgent(api.deps, {
      accountId: alpha.account.id,
      name: 'Flow bot',
      language: 'he',
      voice: 'Ori',
      welcome_message: 'שלום',
      variables_provided: [],
      variables_extracted: [],
      flow: {
        start: 'greet',
        nodes: [
          { id: 'greet', type: 'say', speech: { kind: 'text', content: 'internal-flow-text' } },
          {
            id: 'lookup',
            type: 'function',
            function: { url: 'https://internal-flow-host.example.com/x', secret: 'internal-flow-secret-123' },
          },
          { id: 'bye', type: 'end' },
        ],
        edges: [
          { id: 'e1', from: 'greet', to: 'lookup', condition: { type: 'always' } },
          { id: 'e2', from: 'lookup', to: 'bye', condition: { type: 'success' } },
          { id: 'e3', from: 'lookup', to: 'bye', condition: { type: 'failure' } },
        ],
      },
    });
    const res = await call(`/functions/v1/agent-modify/${flow.agent_id}`, {
      method: 'PATCH',
      body: { name: 'x' },
    });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      status: 'error',
      message:
        'Only singlePrompt agents can be modified through the API; conversationalFlow agents are edited in the dashboard',
    });
    const got = await call(`/functions/v1/agent-get/${flow.agent_id}`);
    expect(got.status).toBe(200);
    expect(keysOf(got.json)).toEqual(AGENT_FIELDS);
    expect(got.json.agent_type).toBe('conversationalFlow');
    const older = await call(`/v1/get-agent/${flow.agent_id}`);
    expect(older.json).toMatchObject({ agent_type: 'conversationalFlow', prompt_text_direction: 'rtl' });
    for (const text of [got.text, older.text, (await call('/v1/list-agents')).text]) {
      for (const internal of ['internal-flow-text', 'internal-flow-host', 'internal-flow-secret', 'lookup'])
        expect(text).not.toContain(internal);
    }
  });
});

describe('a flow agent’s own settings (tRPC, the dashboard’s)', () => {
  it('are changed as its next version, its flow kept in a version row; a prompt or a variable its flow uses is refused', async () => {
    const flow = await createFlowAgent(api.deps, {
      accountId: alpha.account.id,
      name: 'Settings flow',
      language: 'en',
      voice: 'en-steve',
      welcome_message: 'Hello.',
      variables_provided: [{ name: 'patient', description: 'who is called' }],
      variables_extracted: [],
      flow: {
        start: 'greet',
        nodes: [
          { id: 'greet', type: 'say', speech: { kind: 'text', content: 'Hi {{patient}}.' } },
          { id: 'bye', type: 'end' },
        ],
        edges: [{ id: 'e1', from: 'greet', to: 'bye', condition: { type: 'always' } }],
      },
    });
    const trpc = createCaller({ deps: api.deps, requestId: 't', authorization: `Bearer ${alpha.key}` });
    const changed = await trpc.agents.modify({
      agent_id: flow.agent_id,
      welcome_message: 'Hello from the clinic.',
      voice: 'en-gabriel',
      voicemail_action: 'leave_message',
      voicemail_message: 'Please call the clinic back.',
      variables_provided: [
        { name: 'patient', description: 'who is called' },
        { name: 'clinic', description: '', default: 'Smile' },
      ],
    });
    expect(changed).toMatchObject({
      welcome_message: 'Hello from the clinic.',
      agent_type: 'conversationalFlow',
    });
    const row = await api.deps.db.agent.findUniqueOrThrow({ where: { id: flow.agent_id } });
    expect([row.version, row.voicemailAction, row.voicemailMessage]).toEqual([
      2,
      'leave_message',
      'Please call the clinic back.',
    ]);
    const versions = await api.deps.db.agentFlowVersion.findMany({
      where: { agentId: flow.agent_id },
      orderBy: { version: 'asc' },
    });
    expect(versions.map((version) => version.version)).toEqual([1, 2]);
    expect(versions[1]!.definition).toEqual(versions[0]!.definition);

    // Nothing changed: no version.
    await trpc.agents.modify({ agent_id: flow.agent_id, welcome_message: 'Hello from the clinic.' });
    expect((await api.deps.db.agent.findUniqueOrThrow({ where: { id: flow.agent_id } })).version).toBe(2);
    // A prompt, and a given variable its flow speaks: refused, nothing written.
    await expect(trpc.agents.modify({ agent_id: flow.agent_id, prompt: 'Be brief.' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/^prompt: /),
    });
    await expect(
      trpc.agents.modify({ agent_id: flow.agent_id, variables_provided: [] }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/^variables_provided: .*patient/),
    });
    const after = await api.deps.db.agent.findUniqueOrThrow({ where: { id: flow.agent_id } });
    expect([after.version, after.prompt]).toEqual([2, '']);
    expect(await api.deps.db.agentFlowVersion.count({ where: { agentId: flow.agent_id } })).toBe(2);
  });
});

describe('agent-list paging', () => {
  it('pages newest first with an exclusive key, counts all matches and filters by type', async () => {
    const gamma = await seedAccount(api.deps, 'Gamma', ['+14155550103']);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const res = await http(`${api.url}/functions/v1/agent-create`, {
        method: 'POST',
        key: gamma.key,
        body: { name: `A${i}`, prompt: 'p' },
      });
      ids.push(res.json.agent_id as string);
    }
    // seedAccount made one agent directly, before these five.
    const list = (query: string) => http(`${api.url}/functions/v1/agent-list${query}`, { key: gamma.key });
    const first = await list('?limit=2');
    expect(first.json.total_count).toBe(6);
    expect((first.json.agents as Json[]).map((a) => a.agent_id)).toEqual([ids[4], ids[3]]);
    const second = await list(`?limit=2&pagination_key=${ids[3]}`);
    expect((second.json.agents as Json[]).map((a) => a.agent_id)).toEqual([ids[2], ids[1]]);
    expect(second.json.total_count).toBe(6);
    const flows = await list('?agent_type=conversationalFlow');
    expect(flows.json).toEqual({ agents: [], total_count: 0 });

    for (const bad of [
      '?limit=0',
      '?limit=1001',
      '?limit=abc',
      '?agent_type=robot',
      `?pagination_key=${alpha.agent.id}`,
    ]) {
      const res = await list(bad);
      expect(res.status, bad).toBe(400);
      expect(keysOf(res.json)).toEqual(['error']);
    }
  });
});

describe('account isolation', () => {
  it("gives 404 for another account's agent on every agent operation", async () => {
    const id = alpha.agent.id;
    const asBeta = (path: string, init: Parameters<typeof http>[1] = {}) =>
      http(`${api.url}${path}`, { key: beta.key, ...init });
    const get = await asBeta(`/functions/v1/agent-get/${id}`);
    expect([get.status, get.json]).toEqual([404, { error: 'Agent not found' }]);
    const modify = await asBeta(`/functions/v1/agent-modify/${id}`, {
      method: 'PATCH',
      body: { name: 'stolen' },
    });
    expect([modify.status, modify.json]).toEqual([404, { status: 'error', message: 'Agent not found' }]);
    const older = await asBeta(`/v1/get-agent/${id}`);
    expect([older.status, older.json]).toEqual([404, { error: 'Agent not found' }]);
    const duplicate = await asBeta(`/v1/duplicate-agent/${id}`, {
      method: 'POST',
      body: { agent_name: 'copy' },
    });
    expect([duplicate.status, duplicate.json]).toEqual([404, { error: 'Agent not found' }]);
    for (const path of ['/functions/v1/agent-list', '/v1/list-agents']) {
      expect((await asBeta(path)).text).not.toContain(id);
    }
    const unknown = await asBeta('/functions/v1/agent-get/not-a-uuid');
    expect(unknown.status).toBe(404);
    expect((await api.deps.db.agent.findUniqueOrThrow({ where: { id } })).name).toBe('Alpha agent');
  });
});

describe('secrets', () => {
  it('never appear in a response body or a log line', () => {
    expect(responses.length).toBeGreaterThan(20);
    for (const text of [...responses, JSON.stringify(api.logs)]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(HEADER_VALUE);
    }
  });
});
