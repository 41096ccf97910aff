import { FlowDefinition, type FlowEnd, type FunctionOutcome, type Understanding } from '@voice/core';
import type { LanguageModel, LlmMessage } from '@voice/providers';
import { describe, expect, it } from 'vitest';
import { settled } from '../scripted-conversation';
import { FlowDirector, type FlowVoice } from './flow-director';

/**
 * A flow's function nodes, ends and transfers under barge-in: a step the caller interrupts acts no more.
 * The flow on fakes the test drives step by step: words spoken and function requests answered only when
 * the test says so, the model's understanding of each caller turn given in order.
 */

function later<T = void>() {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** Asks the caller's name, looks them up, says goodbye. */
const lookup = FlowDefinition.parse({
  start: 'ask',
  nodes: [
    {
      id: 'ask',
      type: 'ask',
      speech: { kind: 'text', content: 'What is your name?' },
      variables: [{ name: 'name', type: 'string' }],
    },
    { id: 'checking', type: 'say', speech: { kind: 'text', content: 'Let me look you up.' } },
    {
      id: 'lookup',
      type: 'function',
      function: { url: 'https://crm.example.com/lookup', body_variables: ['name'], filler: '' },
    },
    { id: 'bye', type: 'end', speech: { kind: 'text', content: 'Thanks, goodbye.' } },
  ],
  edges: [
    { id: 'asked', from: 'ask', to: 'checking', condition: { type: 'always' } },
    { id: 'checked', from: 'checking', to: 'lookup', condition: { type: 'always' } },
    { id: 'found', from: 'lookup', to: 'bye', condition: { type: 'success' } },
    { id: 'missing', from: 'lookup', to: 'bye', condition: { type: 'failure' } },
  ],
});

/** A greeting, then the question. */
const greeting = FlowDefinition.parse({
  ...lookup,
  start: 'hello',
  nodes: [{ id: 'hello', type: 'say', speech: { kind: 'text', content: 'Hello.' } }, ...lookup.nodes],
  edges: [{ id: 'greeted', from: 'hello', to: 'ask', condition: { type: 'always' } }, ...lookup.edges],
});

function flowOn(definition: FlowDefinition) {
  const said: string[] = [];
  const events: string[] = [];
  const requests: { body: Record<string, string>; answer: (outcome: FunctionOutcome) => void }[] = [];
  /** What the model makes of each of the caller's words. */
  const understandings = new Map<string, Understanding>();
  /** The next words said are on the line only when the test lets them be. */
  let held: Promise<void> | null = null;
  const history: LlmMessage[] = [];
  const voice: FlowVoice = {
    say: async (text) => {
      said.push(text);
      const words = held;
      held = null;
      await words;
    },
    sayModel: async () => {},
    system: (label) => void events.push(label),
    failed: () => {},
    history,
  };
  const llm: LanguageModel = {
    reply: () => {
      throw new Error('a flow speaks no model words here');
    },
    structured: async (messages) => {
      const asked = String(messages.at(-1)?.content);
      const [, understood] = [...understandings].find(([text]) => asked.includes(JSON.stringify(text)))!;
      return understood;
    },
  };
  const director = new FlowDirector(
    {
      definition,
      vars: {},
      callFunction: (_node, body) => {
        const outcome = later<FunctionOutcome>();
        requests.push({ body, answer: outcome.resolve });
        return outcome.promise;
      },
      retrieve: async () => [],
    },
    voice,
    llm,
    { canTransfer: true, today: () => '2025-01-06' },
  );
  return {
    director,
    said,
    events,
    requests,
    /** The caller's words, and what the model makes of them. */
    heard(text: string, variables: Record<string, string | null> = {}): Promise<FlowEnd | null> {
      history.push({ role: 'user', content: text });
      understandings.set(text, { intent: null, variables });
      return director.heard(text);
    },
    /** The next words said stay unheard until the returned function lets them go. */
    holdWords(): () => void {
      const words = later();
      held = words.promise;
      return () => words.resolve();
    },
  };
}

describe('a flow under barge-in', () => {
  it('sends no function request of a step the caller interrupted before it', async () => {
    const flow = flowOn(lookup);
    await flow.director.start();
    const release = flow.holdWords();
    const first = flow.heard('John', { name: 'John' });
    await settled();
    expect(flow.said.at(-1)).toBe('Let me look you up.');
    const second = flow.heard('Sorry, it is Jon.', { name: 'Jon' });
    release();
    await settled();
    expect(flow.requests.map((request) => request.body)).toEqual([{ name: 'Jon' }]);
    expect(await first).toBeNull();
    flow.requests[0]!.answer({ ok: true, data: {} });
    expect(await second).toBe('ended');
    expect(flow.director.collected).toEqual({ name: 'Jon' });
  });

  it('uses no answer of a function the caller interrupted: the flow neither ends nor goes on', async () => {
    const flow = flowOn(lookup);
    await flow.director.start();
    const first = flow.heard('John', { name: 'John' });
    await settled();
    expect(flow.requests).toHaveLength(1);
    const second = flow.heard('Hello?');
    flow.requests[0]!.answer({ ok: true, data: {} });
    expect(await first).toBeNull();
    expect(await second).toBeNull();
    expect(flow.said).toEqual(['What is your name?', 'Let me look you up.', 'Could you tell me name?']);
    expect(flow.events).toContain('flow step dropped: the caller spoke');
    expect(flow.director.collected).toEqual({});
  });

  it('does not end the call on a step whose last words the caller spoke over', async () => {
    const flow = flowOn(lookup);
    await flow.director.start();
    const first = flow.heard('John', { name: 'John' });
    await settled();
    const release = flow.holdWords();
    flow.requests[0]!.answer({ ok: true, data: {} });
    await settled();
    expect(flow.said.at(-1)).toBe('Thanks, goodbye.');
    const second = flow.heard('Wait!');
    release();
    expect(await first).toBeNull();
    expect(await second).toBeNull();
    expect(flow.said.at(-1)).toBe('Could you tell me name?');
  });

  it('keeps a step that, its question spoken over, only waits for the caller', async () => {
    const flow = flowOn(lookup);
    const release = flow.holdWords();
    const opening = flow.director.start();
    await settled();
    const answer = flow.heard('John', { name: 'John' });
    release();
    expect(await opening).toBeNull();
    await settled();
    expect(flow.requests.map((request) => request.body)).toEqual([{ name: 'John' }]);
    flow.requests[0]!.answer({ ok: true, data: {} });
    expect(await answer).toBe('ended');
  });

  it('opens the flow again when the caller interrupts its opening before it waits for them', async () => {
    const flow = flowOn(greeting);
    const release = flow.holdWords();
    const opening = flow.director.start();
    await settled();
    const answer = flow.heard('Hi, who is this?');
    release();
    expect(await opening).toBeNull();
    expect(await answer).toBeNull();
    expect(flow.said).toEqual(['Hello.', 'Hello.', 'What is your name?']);
    void flow.heard('John', { name: 'John' });
    await settled();
    expect(flow.requests.map((request) => request.body)).toEqual([{ name: 'John' }]);
  });
});
