import type { TRPCError } from '@trpc/server';
import { APPOINTMENT_FLOW, loadCallAgent, open, type FlowModel } from '@voice/core';
import type { TestDatabase } from '@voice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardUser, twoAccounts } from '../../test/accounts';
import { createCaller } from '../root';

let deps: Awaited<ReturnType<typeof twoAccounts>>['deps'];
let database: TestDatabase;
let alpha: Awaited<ReturnType<typeof twoAccounts>>['alpha'];
let beta: Awaited<ReturnType<typeof twoAccounts>>['beta'];
let alphaUser: string;
let betaUser: string;

/** A model that takes the caller to be Dana on December 1, and meant no intent. */
const model: FlowModel = {
  structured: async () => ({ intent: null, variables: { name: 'Dana', date: '2026-12-01' } }),
  complete: async () => 'Hello from the model.',
};

beforeAll(async () => {
  ({ deps, database, alpha, beta } = await twoAccounts());
  alphaUser = await dashboardUser(deps, alpha.account.id, 'builder@alpha.example');
  betaUser = await dashboardUser(deps, beta.account.id, 'builder@beta.example');
});
afterAll(() => database.drop());

const as = (authorization: string, flowModel?: FlowModel) =>
  createCaller({ deps, requestId: 'test', authorization, ...(flowModel ? { flowModel } : {}) });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as TRPCError,
  );

const newAgent = () =>
  as(alphaUser).flows.create({
    name: 'Booking',
    language: 'en',
    voice: 'en-steve',
    welcome_message: '',
    variables_provided: [],
    variables_extracted: [],
    template: 'appointment',
  });

describe('flows.* procedures (the builder)', () => {
  it('are for dashboard users only, and only in their account', async () => {
    const agent = await newAgent();
    for (const attempt of [
      () => as(`Bearer ${alpha.key}`).flows.get({ agent_id: agent.agent_id }),
      () => as(`Bearer ${alpha.key}`).flows.export({ agent_id: agent.agent_id }),
      () => as(`Bearer ${alpha.key}`).calls.functionInvocations({ call_id: agent.agent_id }),
    ])
      expect((await failure(attempt())).code).toBe('FORBIDDEN');
    expect((await failure(as(betaUser).flows.get({ agent_id: agent.agent_id }))).code).toBe('NOT_FOUND');
    expect((await failure(as(alphaUser).flows.get({ agent_id: alpha.agent.id }))).message).toBe(
      'Only conversationalFlow agents have a flow',
    );
  });

  it('create from a template at version 1; drafts keep write-only values sealed and never show them', async () => {
    const agent = await newAgent();
    expect(agent.agent_type).toBe('conversationalFlow');
    const api = as(alphaUser);
    const opened = await api.flows.get({ agent_id: agent.agent_id });
    expect(opened).toMatchObject({ version: 1, hasDraft: false, problems: [], flow: APPOINTMENT_FLOW });

    const withSecrets = {
      ...opened.flow,
      nodes: opened.flow.nodes.map((node) =>
        node.type === 'function'
          ? {
              ...node,
              function: {
                ...node.function,
                headers: { 'X-Api-Key': 'calendar-key' },
                secret: 'whsec_c2VjcmV0LXNlY3JldA==',
              },
            }
          : node,
      ),
    };
    expect(await api.flows.saveDraft({ agent_id: agent.agent_id, flow: withSecrets })).toEqual({
      problems: [],
    });
    const draft = await api.flows.get({ agent_id: agent.agent_id });
    const fn = draft.flow.nodes.find((node) => node.type === 'function');
    expect(fn?.type === 'function' && fn.function).toMatchObject({
      headers: { 'X-Api-Key': null },
      secret: null,
    });
    expect(JSON.stringify(draft)).not.toContain('calendar-key');

    // Saved back as shown (nulls), the stored values stay, sealed.
    await api.flows.saveDraft({ agent_id: agent.agent_id, flow: draft.flow });
    const row = await deps.db.agent.findUniqueOrThrow({ where: { id: agent.agent_id } });
    const stored = (row.flowDraft as typeof APPOINTMENT_FLOW).nodes.find((node) => node.type === 'function');
    if (stored?.type !== 'function') throw new Error('no function node stored');
    expect(stored.function.headers['X-Api-Key']).toMatch(/^enc:v1:/);
    expect(open(deps.config, stored.function.headers['X-Api-Key']!)).toBe('calendar-key');
    expect(open(deps.config, stored.function.secret!)).toBe('whsec_c2VjcmV0LXNlY3JldA==');
  });

  it('validate flags problems on their nodes; publish refuses them, then bumps the version', async () => {
    const agent = await newAgent();
    const api = as(alphaUser);
    const { flow } = await api.flows.get({ agent_id: agent.agent_id });
    const orphan = {
      id: 'orphan',
      name: 'Orphan',
      type: 'say' as const,
      speech: { kind: 'text' as const, content: 'Hi' },
    };
    const broken = { ...flow, nodes: [...flow.nodes, orphan] };
    expect((await api.flows.validate({ agent_id: agent.agent_id, flow: broken })).problems).toEqual([
      { node: 'orphan', message: 'Orphan cannot be reached from the start' },
      { node: 'orphan', message: 'Orphan is a dead end: connect it, or make it an end node' },
    ]);
    // A flow of the wrong shape: its schema's problem, on the edge it names.
    const shapeless = {
      ...flow,
      edges: [
        ...flow.edges,
        { id: 'dangling', from: 'ask_details', to: 'nowhere', condition: { type: 'always' } },
      ],
    };
    expect((await api.flows.validate({ agent_id: agent.agent_id, flow: shapeless })).problems).toEqual([
      { edge: 'dangling', node: 'ask_details', message: 'to: names no node (nowhere)' },
    ]);
    expect((await failure(api.flows.saveDraft({ agent_id: agent.agent_id, flow: shapeless }))).code).toBe(
      'BAD_REQUEST',
    );

    expect((await failure(api.flows.publish({ agent_id: agent.agent_id }))).message).toBe(
      'There is no draft to publish: save the flow first',
    );
    await api.flows.saveDraft({ agent_id: agent.agent_id, flow: broken });
    const refused = await failure(api.flows.publish({ agent_id: agent.agent_id }));
    expect([refused.code, refused.message]).toEqual([
      'BAD_REQUEST',
      'The flow cannot be published: Orphan cannot be reached from the start; Orphan is a dead end: connect it, or make it an end node',
    ]);
    const changed = {
      ...flow,
      edges: flow.edges.map((edge) =>
        edge.id === 'offer-accepted'
          ? {
              ...edge,
              condition: { type: 'intent' as const, description: 'The caller says yes to the date' },
            }
          : edge,
      ),
    };
    await api.flows.saveDraft({ agent_id: agent.agent_id, flow: changed });
    expect(await api.flows.publish({ agent_id: agent.agent_id })).toEqual({ version: 2 });
    expect(await api.flows.get({ agent_id: agent.agent_id })).toMatchObject({
      version: 2,
      hasDraft: false,
      flow: changed,
    });
    expect((await deps.db.agent.findUniqueOrThrow({ where: { id: agent.agent_id } })).version).toBe(2);
    const versions = await deps.db.agentFlowVersion.findMany({
      where: { agentId: agent.agent_id },
      orderBy: { version: 'asc' },
    });
    expect(versions.map((version) => version.version)).toEqual([1, 2]);
    expect(await api.flows.export({ agent_id: agent.agent_id })).toEqual(changed);
  });

  it('flags a function URL the service would refuse to call, as agent webhooks are, and will not publish it', async () => {
    const agent = await newAgent();
    const api = as(alphaUser);
    const { flow } = await api.flows.get({ agent_id: agent.agent_id });
    const fn = flow.nodes.find((node) => node.type === 'function')!;
    const inside = {
      ...flow,
      nodes: flow.nodes.map((node) =>
        node.type === 'function'
          ? { ...node, function: { ...node.function, url: 'https://169.254.169.254/latest/meta-data' } }
          : node,
      ),
    };
    const problem = {
      node: fn.id,
      message: `${fn.name || fn.id}: the url must point to a public address: 169.254.169.254 is a link-local address`,
    };
    expect((await api.flows.validate({ agent_id: agent.agent_id, flow: inside })).problems).toEqual([
      problem,
    ]);
    await api.flows.saveDraft({ agent_id: agent.agent_id, flow: inside });
    expect((await api.flows.get({ agent_id: agent.agent_id })).problems).toEqual([problem]);
    const refused = await failure(api.flows.publish({ agent_id: agent.agent_id }));
    expect([refused.code, refused.message]).toEqual([
      'BAD_REQUEST',
      `The flow cannot be published: ${problem.message}`,
    ]);
    expect((await deps.db.agent.findUniqueOrThrow({ where: { id: agent.agent_id } })).version).toBe(1);
  });

  it('runs a text chat turn by turn with the same engine, showing the path, variables and function calls', async () => {
    const agent = await newAgent();
    const { flow } = await as(alphaUser).flows.get({ agent_id: agent.agent_id });
    // The calendar lives at a host that does not resolve: the function fails, and the chat shows why.
    const unreachable = {
      ...flow,
      nodes: flow.nodes.map((node) =>
        node.type === 'function'
          ? { ...node, function: { ...node.function, url: 'https://calendar.invalid/x' } }
          : node,
      ),
    };
    const missing = await failure(
      as(alphaUser).flows.testTurn({
        agent_id: agent.agent_id,
        flow: unreachable,
        dialogue: [],
        state: null,
        text: null,
      }),
    );
    expect(missing.message).toMatch(/^The text chat needs a language model/);

    const api = as(alphaUser, model);
    const first = await api.flows.testTurn({
      agent_id: agent.agent_id,
      flow: unreachable,
      dialogue: [],
      state: null,
      text: null,
    });
    expect(first.entries).toEqual([
      { role: 'system', content: 'node: Ask name and date' },
      {
        role: 'agent',
        content: 'I can book your appointment. May I have your name and the date you would like?',
      },
    ]);
    const second = await api.flows.testTurn({
      agent_id: agent.agent_id,
      flow: unreachable,
      dialogue: [{ role: 'agent', content: first.entries[1]!.content }],
      state: first.state,
      text: 'Dana, December first',
    });
    expect(second.entries.map((entry) => entry.content)).toEqual([
      'node: Check the calendar',
      'function Check the calendar: called',
      'function Check the calendar: failed (refused: calendar.invalid does not resolve)',
      'node: Calendar unavailable',
      'I am sorry, I cannot reach our calendar right now. We will call you back. Goodbye!',
    ]);
    expect(second.state).toMatchObject({
      ended: 'ended',
      collected: { name: 'Dana', date: '2026-12-01' },
      path: ['ask_details', 'check_calendar', 'sorry'],
    });
    expect(second.invocations).toEqual([
      expect.objectContaining({
        node: 'check_calendar',
        ok: false,
        request: expect.objectContaining({ args: { name: 'Dana', date: '2026-12-01' } }),
      }),
    ]);
  });

  it('answers from an uploaded Markdown document with its fact, and says it does not know what it does not hold', async () => {
    const api = as(alphaUser);
    const base = await api.knowledge.create({ name: 'Clinic facts', language: 'en' });
    const markdown =
      '# Opening hours\n\nOn Sundays the clinic is closed.\n\n# Parking\n\nFree parking is behind the building.\n';
    await api.knowledge.addDocument({
      knowledge_base_id: base.id,
      name: 'clinic.md',
      content_type: 'text/markdown',
      data_base64: Buffer.from(markdown).toString('base64'),
    });
    const faq = {
      start: 'hello',
      nodes: [
        {
          id: 'hello',
          type: 'say',
          speech: { kind: 'text', content: 'Hello, what would you like to know?' },
        },
        { id: 'answer', type: 'knowledge', knowledge_base_ids: [base.id] },
        { id: 'bye', type: 'end', speech: { kind: 'text', content: 'Goodbye!' } },
      ],
      edges: [
        { id: 'ask', from: 'hello', to: 'answer', condition: { type: 'always' } },
        {
          id: 'done',
          from: 'answer',
          to: 'bye',
          condition: { type: 'intent', description: 'No more questions' },
        },
      ],
    };
    const agent = await as(alphaUser).flows.create({
      name: 'FAQ',
      language: 'en',
      voice: 'en-steve',
      welcome_message: '',
      variables_provided: [],
      variables_extracted: [],
      flow: faq,
    });
    // The model answers with the first passage it is given (what a model told to answer from them does).
    const reader: FlowModel = {
      structured: async () => ({ intent: null, variables: {} }),
      complete: async ([system]) => /\[1\] [^\n]*\n([^\n]+)/.exec(system?.content ?? '')?.[1] ?? 'no passage',
    };
    const chat = as(alphaUser, reader);
    const start = await chat.flows.testTurn({
      agent_id: agent.agent_id,
      flow: faq,
      dialogue: [],
      state: null,
      text: null,
    });
    const ask = (text: string) =>
      chat.flows.testTurn({ agent_id: agent.agent_id, flow: faq, dialogue: [], state: start.state, text });
    expect((await ask('Are you open on Sunday?')).entries).toEqual([
      { role: 'system', content: 'knowledge: 1 passage' },
      { role: 'agent', content: 'On Sundays the clinic is closed.' },
    ]);
    expect((await ask('Who won the world cup?')).entries).toEqual([
      { role: 'system', content: 'knowledge: 0 passages' },
      { role: 'agent', content: "I'm sorry, I don't know the answer to that." },
    ]);
    // A knowledge node naming a knowledge base the account does not have cannot be published.
    const elsewhere = {
      ...faq,
      nodes: faq.nodes.map((node) =>
        node.type === 'knowledge'
          ? { ...node, knowledge_base_ids: ['5d1c2f4e-8a7b-4c3d-9e2f-1a0b9c8d7e6f'] }
          : node,
      ),
    };
    expect((await api.flows.validate({ agent_id: agent.agent_id, flow: elsewhere })).problems).toEqual([
      { node: 'answer', message: 'answer answers from a knowledge base that does not exist' },
    ]);
    // Knowledge bases are the dashboard's: API keys cannot read them.
    expect((await failure(as(`Bearer ${alpha.key}`).knowledge.list())).code).toBe('FORBIDDEN');
    expect(await as(betaUser).knowledge.search({ knowledge_base_ids: [base.id], query: 'parking' })).toEqual(
      [],
    );
    expect(await api.knowledge.search({ knowledge_base_ids: [base.id], query: 'parking' })).toEqual([
      'Parking\nFree parking is behind the building.',
    ]);
  });

  it('tries the draft on the canvas as a web call: a test call that runs that draft, not the published flow', async () => {
    const agent = await newAgent();
    const api = as(alphaUser);
    const { flow } = await api.flows.get({ agent_id: agent.agent_id });
    const orphan = { id: 'orphan', type: 'say' as const, speech: { kind: 'text' as const, content: 'Hi' } };
    expect(
      (
        await failure(
          api.flows.testWebCall({
            agent_id: agent.agent_id,
            flow: { ...flow, nodes: [...flow.nodes, orphan] },
          }),
        )
      ).message,
    ).toMatch(/^The draft cannot be tried yet: orphan cannot be reached from the start/);
    const draft = {
      ...flow,
      nodes: flow.nodes.map((node) =>
        node.id === 'ask_details' && node.type === 'ask'
          ? { ...node, speech: { kind: 'text' as const, content: 'Draft question: your name and date?' } }
          : node,
      ),
    };
    const call = await api.flows.testWebCall({ agent_id: agent.agent_id, flow: draft });
    expect(call).toMatchObject({ call_type: 'web_call', call_status: 'initiated' });
    const row = await deps.db.call.findUniqueOrThrow({ where: { id: call.call_id } });
    expect(row.isTestCall).toBe(true);
    const loaded = await loadCallAgent(deps, call.call_id);
    expect(loaded?.flow).toEqual(draft);
    // The published flow is untouched: other calls run it.
    expect((await api.flows.get({ agent_id: agent.agent_id })).flow).toEqual(flow);
  });
});
