import { describe, expect, it } from 'vitest';
import { advanceFlow, FLOW_PHRASES, HUMAN_INTENT, initialFlowState } from './flow-engine';
import type {
  FlowInput,
  FlowPorts,
  FlowState,
  FunctionOutcome,
  Understanding,
  UnderstandRequest,
} from './flow-ports';
import { normalizeValue, readPath } from './values';
import { FlowDefinition, type FlowDefinitionInput } from './schema';
import { APPOINTMENT_FLOW } from './templates';

interface Script {
  understand?: (request: UnderstandRequest) => Partial<Understanding>;
  functions?: (name: string, body: Record<string, string>) => FunctionOutcome;
  /** The function's answer comes after the filler's delay. */
  slow?: boolean;
  passages?: string[];
}

/** Ports that do nothing but write down, in order, what the engine asked of them. */
function recorder(script: Script = {}) {
  const log: string[] = [];
  const ports: FlowPorts = {
    say: async (text) => void log.push(`say: ${text}`),
    instruct: async (instruction, { passages }) =>
      void log.push(`instruct: ${instruction}${passages ? ` [${passages.join(' / ')}]` : ''}`),
    understand: async (request) => {
      log.push(`understand: ${request.utterance}`);
      return { intent: null, variables: {}, ...script.understand?.(request) };
    },
    callFunction: async (node, body) => {
      log.push(`request: ${node.name} ${JSON.stringify(body)}`);
      if (script.slow) await new Promise((resolve) => setTimeout(resolve, 5));
      return script.functions?.(node.name, body) ?? { ok: true, data: {} };
    },
    retrieve: async (ids, query) => {
      log.push(`retrieve: ${ids.join(',')} ${query}`);
      return script.passages ?? [];
    },
    event: (label) => void log.push(`event: ${label}`),
    delay: (ms) => (script.slow ? Promise.resolve() : new Promise(() => void ms)),
  };
  return { log, ports };
}

async function converse(
  flow: FlowDefinition,
  callerTurns: string[],
  script: Script = {},
  { canTransfer = true, vars = {} }: { canTransfer?: boolean; vars?: Record<string, string> } = {},
) {
  const { log, ports } = recorder(script);
  const run = { flow, ports, canTransfer };
  let state: FlowState = initialFlowState(vars);
  const inputs: FlowInput[] = [
    { type: 'start' },
    ...callerTurns.map((text) => ({ type: 'caller' as const, text })),
  ];
  for (const input of inputs) {
    if (state.ended) break;
    state = await advanceFlow(run, state, input);
  }
  return { state, log };
}

const flow = (input: FlowDefinitionInput) => FlowDefinition.parse(input);
const text = (content: string) => ({ kind: 'text' as const, content });

/** The appointment template's model: the name and date it is told, and which intent the caller meant. */
const booking =
  (answers: { name?: string; date?: string; intent?: string }) =>
  (request: UnderstandRequest): Partial<Understanding> => ({
    variables: Object.fromEntries(
      request.variables.map((variable) => [
        variable.name,
        variable.name === 'name' ? (answers.name ?? null) : (answers.date ?? null),
      ]),
    ),
    intent: answers.intent ?? null,
  });

describe('the flow engine', () => {
  it('walks the appointment flow when the date is free: asks, calls the calendar, confirms and ends', async () => {
    const { state, log } = await converse(APPOINTMENT_FLOW, ['Dana, on the first of December'], {
      understand: booking({ name: 'Dana', date: '2026-12-01' }),
      functions: () => ({ ok: true, data: { available: true } }),
    });
    expect(log).toEqual([
      'event: node: Ask name and date',
      'say: I can book your appointment. May I have your name and the date you would like?',
      'understand: Dana, on the first of December',
      'event: node: Check the calendar',
      'event: function Check the calendar: called',
      'request: Check the calendar {"name":"Dana","date":"2026-12-01"}',
      'event: function Check the calendar: ok',
      'event: node: Confirm',
      'say: Thank you Dana, you are booked for 2026-12-01. Goodbye!',
    ]);
    expect(state).toMatchObject({
      ended: 'ended',
      path: ['ask_details', 'check_calendar', 'confirm'],
      collected: { name: 'Dana', date: '2026-12-01' },
      vars: { name: 'Dana', date: '2026-12-01', available: 'yes' },
    });
  });

  it('offers the calendar’s other date, and books it when the caller accepts (an intent edge)', async () => {
    let understood = 0;
    const { state, log } = await converse(APPOINTMENT_FLOW, ['Dana, December first', 'Yes, that works'], {
      understand: (request) =>
        ++understood === 1
          ? booking({ name: 'Dana', date: '2026-12-01' })(request)
          : { intent: 'offer-accepted' },
      functions: () => ({ ok: true, data: { available: false, alternative_date: '2026-12-03' } }),
    });
    expect(log).toContain(
      'say: I am sorry, 2026-12-01 is not available. Would 2026-12-03 work for you instead?',
    );
    expect(log.at(-1)).toBe('say: Thank you Dana, you are booked for 2026-12-03. Goodbye!');
    expect(state.path).toEqual(['ask_details', 'check_calendar', 'offer_other', 'confirm_other']);
    expect(state.ended).toBe('ended');
  });

  it('asks again for a new date when the caller declines, and checks the calendar again', async () => {
    let understood = 0;
    const dates = ['2026-12-01', '2026-12-08'];
    const { state, log } = await converse(
      APPOINTMENT_FLOW,
      ['Dana, December first', 'No', 'The eighth then'],
      {
        understand: (request) => {
          understood += 1;
          if (understood === 2) return { intent: 'offer-declined' };
          return booking({ name: 'Dana', date: understood === 1 ? dates[0] : dates[1] })(request);
        },
        functions: (_name, body) => ({
          ok: true,
          data:
            body.date === '2026-12-08'
              ? { available: true }
              : { available: false, alternative_date: '2026-12-03' },
        }),
      },
    );
    expect(log.filter((line) => line.startsWith('request:'))).toEqual([
      'request: Check the calendar {"name":"Dana","date":"2026-12-01"}',
      'request: Check the calendar {"name":"Dana","date":"2026-12-08"}',
    ]);
    expect(state.path).toEqual([
      'ask_details',
      'check_calendar',
      'offer_other',
      'ask_date',
      'check_calendar',
      'confirm',
    ]);
    expect(state.collected).toEqual({ name: 'Dana', date: '2026-12-08' });
  });

  it('takes the failure edge when the function fails or times out, and says why in the system entry', async () => {
    const { state, log } = await converse(APPOINTMENT_FLOW, ['Dana, December first'], {
      understand: booking({ name: 'Dana', date: '2026-12-01' }),
      functions: () => ({ ok: false, error: 'timed out after 8000 ms' }),
    });
    expect(log).toContain('event: function Check the calendar: failed (timed out after 8000 ms)');
    expect(state.path.at(-1)).toBe('sorry');
    expect(state.ended).toBe('ended');
    expect(state.vars.available).toBeUndefined();
  });

  it('says the filler while a slow function runs, and only then', async () => {
    const slow = await converse(APPOINTMENT_FLOW, ['Dana, December first'], {
      understand: booking({ name: 'Dana', date: '2026-12-01' }),
      functions: () => ({ ok: true, data: { available: true } }),
      slow: true,
    });
    const called = slow.log.indexOf('event: function Check the calendar: called');
    expect(slow.log.slice(called + 1, called + 4)).toEqual([
      'request: Check the calendar {"name":"Dana","date":"2026-12-01"}',
      'say: One moment while I check that.',
      'event: function Check the calendar: ok',
    ]);
    const quick = await converse(APPOINTMENT_FLOW, ['Dana, December first'], {
      understand: booking({ name: 'Dana', date: '2026-12-01' }),
    });
    expect(quick.log).not.toContain('say: One moment while I check that.');
  });

  it('asks for what is missing, then takes the fallback edge after max_attempts', async () => {
    const survey = flow({
      start: 'age',
      nodes: [
        {
          id: 'age',
          type: 'ask',
          speech: text('How old are you?'),
          variables: [{ name: 'age', type: 'number', description: 'your age' }],
          max_attempts: 2,
        },
        { id: 'adult', type: 'end', speech: text('Thanks, adult.') },
        { id: 'minor', type: 'end', speech: text('Thanks, minor.') },
        { id: 'unknown', type: 'end', speech: text('Never mind.') },
      ],
      edges: [
        { id: 'a', from: 'age', to: 'adult', condition: { type: 'rule', rule: 'age >= 18' } },
        { id: 'm', from: 'age', to: 'minor', condition: { type: 'rule', rule: 'age < 18' } },
        { id: 'f', from: 'age', to: 'unknown', condition: { type: 'fallback' } },
      ],
    });
    const noAge = await converse(survey, ['Why?', 'I will not say']);
    expect(noAge.log.filter((line) => line.startsWith('say:'))).toEqual([
      'say: How old are you?',
      'say: Could you tell me your age?',
      'say: Never mind.',
    ]);
    const ages = (age: string) => () => ({ variables: { age } });
    expect((await converse(survey, ['forty two'], { understand: ages('42') })).state.path.at(-1)).toBe(
      'adult',
    );
    expect((await converse(survey, ['twelve'], { understand: ages('12') })).state.path.at(-1)).toBe('minor');
    // A value that is not a number is no answer: asked again.
    const bad = await converse(survey, ['old'], { understand: ages('old') });
    expect(bad.state).toMatchObject({ node: 'age', waiting: true, attempts: 1, ended: null });
  });

  it('decides intent edges through the model, and says it did not catch a reply that matches none', async () => {
    const confirm = flow({
      start: 'q',
      nodes: [
        { id: 'q', type: 'say', speech: text('Shall I send it?') },
        { id: 'yes', type: 'end', speech: text('Sent.') },
        { id: 'no', type: 'end', speech: text('Not sent.') },
      ],
      edges: [
        {
          id: 'agree',
          from: 'q',
          to: 'yes',
          condition: { type: 'intent', description: 'The caller agrees' },
        },
        {
          id: 'refuse',
          from: 'q',
          to: 'no',
          condition: { type: 'intent', description: 'The caller refuses' },
        },
      ],
    });
    let asked: UnderstandRequest | undefined;
    const agreed = await converse(confirm, ['sure'], {
      understand: (request) => {
        asked = request;
        return { intent: 'agree' };
      },
    });
    expect(asked?.intents).toEqual([
      { id: 'agree', description: 'The caller agrees' },
      { id: 'refuse', description: 'The caller refuses' },
    ]);
    expect(agreed.state.path).toEqual(['q', 'yes']);
    const unclear = await converse(confirm, ['what?']);
    expect(unclear.log.slice(-2)).toEqual([`say: ${FLOW_PHRASES.notCaught}`, 'say: Shall I send it?']);
    expect(unclear.state).toMatchObject({ node: 'q', waiting: true, ended: null });
  });

  it('goes to the handoff node whenever the caller asks for a person, and cannot transfer a web call', async () => {
    const asksHuman = { understand: () => ({ intent: HUMAN_INTENT }) };
    const phone = await converse(APPOINTMENT_FLOW, ['Can I talk to a real person?'], asksHuman);
    expect(phone.log.slice(-4)).toEqual([
      'event: caller asked for a human',
      'event: node: To a person',
      'say: Let me connect you with a colleague.',
      'event: transfer',
    ]);
    expect(phone.state.ended).toBe('transferred');
    const web = await converse(APPOINTMENT_FLOW, ['A person please'], asksHuman, { canTransfer: false });
    expect(web.log.slice(-2)).toEqual(['event: transfer unavailable', `say: ${FLOW_PHRASES.noTransfer}`]);
    expect(web.state.ended).toBe('agent_hangup');
  });

  it('answers from a knowledge base, and says it does not know when nothing relevant is found', async () => {
    const faq = flow({
      start: 'hello',
      nodes: [
        {
          id: 'hello',
          type: 'say',
          speech: { kind: 'instruction', content: 'Greet {{first_name}} and ask for a question' },
        },
        {
          id: 'answer',
          type: 'knowledge',
          knowledge_base_ids: ['7b3f5c52-59a4-4c2e-8d0c-6f1f4e3c9a10'],
          instruction: 'Be brief.',
        },
        { id: 'bye', type: 'end' },
      ],
      edges: [
        { id: 'asks', from: 'hello', to: 'answer', condition: { type: 'always' } },
        {
          id: 'done',
          from: 'answer',
          to: 'bye',
          condition: { type: 'intent', description: 'No more questions' },
        },
      ],
    });
    const known = await converse(
      faq,
      ['When do you open?'],
      { passages: ['We open at 8.'] },
      { vars: { first_name: 'Dana' } },
    );
    expect(known.log[1]).toBe('instruct: Greet Dana and ask for a question');
    // The greeting goes on at once; the question is answered when the caller asks it.
    expect(known.log).toContain('retrieve: 7b3f5c52-59a4-4c2e-8d0c-6f1f4e3c9a10 When do you open?');
    expect(known.log.at(-1)).toMatch(
      /^instruct: Answer the caller's question using only the passages given\..* Be brief\. \[We open at 8\.\]$/,
    );
    const unknown = await converse(faq, ['Who won the cup?'], { passages: [] });
    expect(unknown.log.slice(-2)).toEqual(['event: knowledge: 0 passages', `say: ${FLOW_PHRASES.dontKnow}`]);
    expect(unknown.state).toMatchObject({ node: 'answer', waiting: true });
  });

  it('stops a flow that loops without the caller, politely', async () => {
    const loop = flow({
      start: 'a',
      nodes: [
        { id: 'a', type: 'say', speech: text('A.') },
        { id: 'b', type: 'say', speech: text('B.') },
      ],
      edges: [
        { id: 'ab', from: 'a', to: 'b', condition: { type: 'always' } },
        { id: 'ba', from: 'b', to: 'a', condition: { type: 'always' } },
      ],
    });
    const { state, log } = await converse(loop, []);
    expect(state.ended).toBe('agent_hangup');
    expect(log.slice(-2)).toEqual([
      'event: flow stopped: it loops without the caller',
      `say: ${FLOW_PHRASES.loop}`,
    ]);
  });

  it('leaves the state it was given untouched, and does nothing once ended', async () => {
    const { ports } = recorder({
      understand: booking({ name: 'Dana', date: '2026-12-01' }),
      functions: () => ({ ok: true, data: { available: true } }),
    });
    const run = { flow: APPOINTMENT_FLOW, ports, canTransfer: true };
    const started = await advanceFlow(run, initialFlowState(), { type: 'start' });
    const copy = structuredClone(started);
    const next = await advanceFlow(run, started, { type: 'caller', text: 'Dana, the first' });
    expect(started).toEqual(copy);
    expect(next.ended).toBe('ended');
    expect(await advanceFlow(run, next, { type: 'caller', text: 'hello?' })).toEqual(next);
  });
});

describe('variable types', () => {
  const variable = (type: 'string' | 'number' | 'date' | 'yes_no' | 'phone', choices?: string[]) => ({
    name: 'v',
    type,
    description: '',
    required: true,
    ...(choices ? { choices } : {}),
  });
  it('keeps each type’s values in one form and refuses what is not one', () => {
    expect(normalizeValue(variable('number'), '1,250 shekels')).toBe('1250');
    expect(normalizeValue(variable('number'), 'many')).toBeNull();
    expect(normalizeValue(variable('date'), '2026-12-01')).toBe('2026-12-01');
    expect(normalizeValue(variable('date'), '2026-02-30')).toBeNull();
    expect(normalizeValue(variable('date'), 'next Tuesday')).toBeNull();
    expect(normalizeValue(variable('yes_no'), 'Yes')).toBe('yes');
    expect(normalizeValue(variable('yes_no'), 'false')).toBe('no');
    expect(normalizeValue(variable('yes_no'), 'maybe')).toBeNull();
    expect(
      normalizeValue({ ...variable('string'), type: 'choice', choices: ['Morning', 'Evening'] }, 'evening'),
    ).toBe('Evening');
    expect(
      normalizeValue({ ...variable('string'), type: 'choice', choices: ['Morning', 'Evening'] }, 'night'),
    ).toBeNull();
    expect(normalizeValue(variable('phone'), '+1 (415) 555-0123')).toBe('+14155550123');
    expect(normalizeValue(variable('phone'), '12')).toBeNull();
    expect(normalizeValue(variable('string'), '  ')).toBeNull();
  });

  it('reads JSON paths of a function response', () => {
    const data = { available: false, slots: [{ date: '2026-12-03' }], count: 2, meta: { tags: ['a'] } };
    expect(readPath(data, '$.available')).toBe('no');
    expect(readPath(data, '$.slots[0].date')).toBe('2026-12-03');
    expect(readPath(data, '$.count')).toBe('2');
    expect(readPath(data, '$.meta')).toBe('{"tags":["a"]}');
    expect(readPath(data, '$.slots[3].date')).toBeNull();
    expect(readPath(null, '$.available')).toBeNull();
  });
});
