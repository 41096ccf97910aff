import type { ConversationEnd, ConversationResult } from '@voice/core';
import type { LanguageModel, LlmEvent, LlmMessage, SttEvents } from '@voice/providers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HeldLine, quietVoice, ScriptedModel, settled } from '../scripted-conversation';
import { ModelTurns } from './model-turns';
import type { ConversationOptions, SessionAgent } from './options';
import { phrasesFor } from './phrases';
import { ConversationSession } from './session';

/**
 * Tool calls under barge-in (pipecat #4997, #5779: an end_call from a discarded generation hung up on a
 * live caller). A conversation on fakes the test drives step by step: the model's replies written event
 * by event (ignoring the abort, as a reply already received would), the caller's words as
 * speech-to-text's finals, and a line whose far end hears the agent only when the test says so.
 */

const agent: SessionAgent = {
  model: null,
  language: 'en',
  voice: 'en-steve',
  prompt: 'You book dental appointments.',
  welcomeMessage: 'Hello, this is the dental clinic.',
  endCallEnabled: true,
  endCallCondition: '',
  transferEnabled: true,
  reminderAfterMs: 5_000,
  reminderMaxCount: 1,
};

const providersOf = (llm: LanguageModel, stt: ConversationOptions['providers']['stt']) => ({
  llm,
  stt,
  tts: { synthesize: async () => Buffer.alloc(160, 0xff) },
});

/** A prompt agent's call on fakes, its welcome heard. */
async function call() {
  const model = new ScriptedModel();
  const line = new HeldLine();
  let stt: SttEvents | null = null;
  let result: ConversationResult | null = null;
  const session = new ConversationSession(line, {
    agent,
    providers: providersOf(model, {
      async open(_options, events) {
        stt = events;
        return { send() {}, close: async () => {} };
      },
    }),
    vad: null,
    noise: null,
    limits: { silenceTimeoutMs: 60_000, maxDurationMs: 600_000 },
    ended: async (ended) => void (result = ended),
  });
  await session.start();
  line.hearAll();
  return {
    session,
    model,
    line,
    /** The caller's words, final: they speak over the agent, then take the turn. */
    callerSays: (text: string) => stt!.utterance(text),
    /** The caller's words so far, which cut the agent short before they end. */
    callerStarts: (text: string) => stt!.interim!(text),
    get ended(): ConversationEnd | null {
      return result?.end ?? null;
    },
    /** The tool results the model has been given, in order. */
    toolResults: () =>
      session.history.flatMap((message) => (message.role === 'tool' ? [message.content] : [])),
  };
}

type Call = Awaited<ReturnType<typeof call>>;

/** The caller's turn, and the model's reply to it once asked for. */
async function answer(conversation: Call, text: string) {
  const next = conversation.model.requests.length + 1;
  conversation.callerSays(text);
  return conversation.model.asked(next);
}

const endCall = (goalReached = true): LlmEvent => ({
  type: 'tool',
  name: 'end_call',
  arguments: { goal_reached: goalReached },
});

describe('tool calls under barge-in', () => {
  afterEach(() => vi.useRealTimers());

  it('ends the call with end_call once the goodbye before it is heard', async () => {
    const conversation = await call();
    (await answer(conversation, 'That is all, thanks.')).end({ type: 'text', text: 'Goodbye!' }, endCall());
    await settled();
    expect(conversation.ended).toBeNull();
    conversation.line.hearAll();
    await settled();
    expect(conversation.ended).toBe('ended');
  });

  it('does not end the call when the caller speaks over the goodbye before end_call', async () => {
    const conversation = await call();
    (await answer(conversation, 'That is all, thanks.')).end({ type: 'text', text: 'Goodbye!' }, endCall());
    await settled();
    // The goodbye plays; the caller cuts it short, their words not yet final.
    conversation.callerStarts('Wait, one more thing');
    await settled();
    expect(conversation.ended).toBeNull();
    expect(conversation.toolResults()).toEqual(['not done: the caller spoke before it took effect']);
    // Their words, answered; the model's next end_call ends the call.
    (await answer(conversation, 'Wait, one more thing. Is parking free?')).end(
      { type: 'text', text: 'Yes, it is. Goodbye!' },
      endCall(),
    );
    await settled();
    conversation.line.hearAll();
    await settled();
    expect(conversation.ended).toBe('ended');
  });

  it('does not transfer the call when the caller speaks over the words before transfer_call', async () => {
    const conversation = await call();
    (await answer(conversation, 'Can I talk to someone?')).end(
      { type: 'text', text: 'Let me find a colleague for you.' },
      { type: 'tool', name: 'transfer_call', arguments: {} },
    );
    await settled();
    const next = await answer(conversation, 'Actually no, never mind.');
    await settled();
    expect(conversation.ended).toBeNull();
    // The model answering the caller's words is told the transfer did not happen.
    expect(conversation.model.requests[1]!.filter((message) => message.role === 'tool')).toEqual([
      expect.objectContaining({ content: 'not done: the caller spoke before it took effect' }),
    ]);
    next.end({ type: 'text', text: 'Sure. What else can I do for you?' });
    await settled();
    conversation.line.callerHangsUp();
    await settled();
    expect(conversation.ended).toBe('user_hangup');
  });

  it('runs no tool of a reply the caller cut short while the model wrote it', async () => {
    const conversation = await call();
    const reply = await answer(conversation, 'Tuesday, please.');
    reply.write(
      { type: 'text', text: 'Tuesday it is. Goodbye!' },
      { type: 'tool', name: 'collect_variable', arguments: { name: 'day', value: 'Tuesday' } },
      endCall(),
    );
    await settled();
    const next = await answer(conversation, 'No, Thursday!');
    reply.end();
    await settled();
    conversation.line.hearAll();
    await settled();
    expect(conversation.ended).toBeNull();
    expect(conversation.session.varsCollected).toEqual({});
    expect(conversation.toolResults()).toEqual([]);
    next.end(
      { type: 'text', text: 'Thursday then.' },
      { type: 'tool', name: 'collect_variable', arguments: { name: 'day', value: 'Thursday' } },
    );
    await settled();
    expect(conversation.session.varsCollected).toEqual({ day: 'Thursday' });
    conversation.line.callerHangsUp();
    await settled();
  });

  it('runs no tool of a reply that another turn of the agent has taken over from', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const conversation = await call();
    const reply = await answer(conversation, 'Tuesday, please.');
    reply.write({ type: 'text', text: 'Let me check. ' });
    await settled();
    conversation.line.hearAll();
    // The model is slow to go on: the caller's silence gets its reminder, a turn of its own.
    vi.advanceTimersByTime(agent.reminderAfterMs!);
    await settled();
    reply.end(
      { type: 'tool', name: 'collect_variable', arguments: { name: 'day', value: 'Tuesday' } },
      endCall(),
    );
    await settled();
    conversation.line.hearAll();
    await settled();
    expect(conversation.ended).toBeNull();
    expect(conversation.session.varsCollected).toEqual({});
    expect(conversation.session.transcript.map((entry) => entry.content)).toContain(
      phrasesFor('en').reminder,
    );
    conversation.line.callerHangsUp();
    await settled();
  });

  it('ends the call once for a reply with a second end_call or a transfer after the first', async () => {
    const conversation = await call();
    (await answer(conversation, 'That is all.')).end(
      { type: 'text', text: 'Goodbye!' },
      endCall(true),
      endCall(false),
      { type: 'tool', name: 'transfer_call', arguments: {} },
    );
    await settled();
    conversation.line.hearAll();
    await settled();
    expect(conversation.ended).toBe('ended');
    expect(conversation.toolResults()).toEqual([
      'ok',
      'not done: the call is already ending',
      'not done: the call is already ending',
    ]);
  });

  it('ignores an end_call while an earlier one is still ending the call', async () => {
    const model = new ScriptedModel();
    const line = new HeldLine();
    const history: LlmMessage[] = [];
    const options: ConversationOptions = {
      agent,
      providers: providersOf(model, { open: () => Promise.reject(new Error('not listened to')) }),
      limits: { silenceTimeoutMs: 60_000, maxDurationMs: 600_000 },
      ended: async () => {},
    };
    const voice = quietVoice(line, options, { history });
    const finishing: ConversationEnd[] = [];
    let finished: () => void = () => {};
    const turns = new ModelTurns({
      options,
      voice,
      history,
      failures: [],
      varsCollected: {},
      keyEntries: [],
      phrases: phrasesFor('en'),
      sayAndEnd: async () => {},
      // The first end takes its time (a warm transfer, the call's end stored).
      finish: (end) => {
        finishing.push(end);
        return new Promise<void>((resolve) => (finished = resolve));
      },
    });
    const first = turns.respond();
    (await model.asked(1)).end(
      { type: 'text', text: 'Let me transfer you.' },
      {
        type: 'tool',
        name: 'transfer_call',
        arguments: {},
      },
    );
    await settled();
    line.hearAll();
    await settled();
    expect(finishing).toEqual(['transferred']);
    const second = turns.respond();
    (await model.asked(2)).end({ type: 'text', text: 'Goodbye!' }, endCall());
    await settled();
    line.hearAll();
    await settled();
    expect(finishing).toEqual(['transferred']);
    expect(history.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual([
      'ok',
      'not done: the call is already ending',
    ]);
    finished();
    await Promise.all([first, second]);
  });
});
