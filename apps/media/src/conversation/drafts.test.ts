import type { ConversationResult } from '@voice/core';
import type { SttEvents } from '@voice/providers';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HeldLine, ScriptedModel, settled } from '../scripted-conversation';
import { UNSURE_HOLD_MS } from './end-of-turn';
import type { SessionAgent } from './options';
import { ConversationSession } from './session';
import { UsageMeter } from './usage';

/**
 * Answers begun before the caller's turn is certain (preemptive generation, end-of-turn.ts): a
 * conversation on fakes the test drives step by step (tool-safety.test.ts's), the caller's words as
 * speech-to-text's finals, the model's replies written by the test, the line's first frame going out as
 * soon as a sentence is played. Timers are the test's.
 */

const agent: SessionAgent = {
  model: null,
  language: 'en',
  voice: 'en-steve',
  prompt: 'You take orders.',
  welcomeMessage: 'Hello, this is the shop.',
  endCallEnabled: true,
  endCallCondition: '',
  transferEnabled: false,
  reminderAfterMs: 60_000,
  reminderMaxCount: 1,
};

/** A prompt agent's call on fakes, its welcome heard; its providers metered as a call's are. */
async function call() {
  const model = new ScriptedModel();
  const line = new HeldLine();
  const usage = new UsageMeter();
  const drafts: string[] = [];
  let stt: SttEvents | null = null;
  let result: ConversationResult | null = null;
  const session = new ConversationSession(line, {
    agent,
    providers: usage.meter({
      llm: model,
      stt: {
        async open(_options, events) {
          stt = events;
          return { send() {}, close: async () => {} };
        },
      },
      tts: { synthesize: async () => Buffer.alloc(160, 0xff) },
    }),
    vad: null,
    noise: null,
    limits: { silenceTimeoutMs: 60_000, maxDurationMs: 600_000 },
    ended: async (ended) => void (result = ended),
    drafted: (outcome) => void drafts.push(outcome),
  });
  await session.start();
  line.hearAll();
  const welcome = line.played.length;
  return {
    session,
    model,
    line,
    usage,
    drafts,
    /** The marks played since the welcome. */
    answersPlayed: () => line.played.slice(welcome),
    /** The caller's words, final (the voice detector missed their voice: the words alone tell). */
    callerSays: (text: string) => stt!.utterance(text),
    get result() {
      return result;
    },
    userMessages: (request: number) =>
      model.requests[request]!.filter((message) => message.role === 'user').map((m) => m.content),
  };
}

const usage = (outputTokens: number) => ({ type: 'usage' as const, inputTokens: 100, outputTokens });

describe('an answer begun before the caller has surely finished (a draft)', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));
  afterEach(() => vi.useRealTimers());

  it('is heard as soon as it is ready after words surely finished, and counted used', async () => {
    const conversation = await call();
    conversation.callerSays('Do you take credit cards?');
    (await conversation.model.asked(1)).end({ type: 'text', text: 'Yes, we do.' }, usage(4));
    await settled();
    expect(conversation.answersPlayed()).toHaveLength(1);
    expect(conversation.drafts).toEqual(['used']);
  });

  it('is thrown away unheard when the caller goes on first; all their words are answered once', async () => {
    const conversation = await call();
    conversation.callerSays('Do you take credit cards?');
    const first = await conversation.model.asked(1);
    // The caller goes on while the model writes: its answer, and the tool it calls, come to nothing.
    conversation.callerSays('Or only cash?');
    first.end(
      { type: 'text', text: 'Yes, we do.' },
      { type: 'tool', name: 'end_call', arguments: { goal_reached: true } },
      usage(9),
    );
    const second = await conversation.model.asked(2);
    await settled();
    expect(conversation.answersPlayed()).toEqual([]);
    expect(conversation.drafts).toEqual(['discarded']);
    // One turn, as the caller said it: in the model's messages and the transcript.
    expect(conversation.userMessages(0)).toEqual(['Do you take credit cards?']);
    expect(conversation.userMessages(1)).toEqual(['Do you take credit cards? Or only cash?']);
    second.end({ type: 'text', text: 'Both, of course.' }, usage(5));
    await settled();
    conversation.line.hearAll();
    await settled();
    expect(conversation.answersPlayed()).toHaveLength(1);
    expect(conversation.result).toBeNull();
    expect(conversation.drafts).toEqual(['discarded', 'used']);
    // The draft thrown away was read to its end: its tokens are the call's too.
    expect(conversation.model.signals[0]!.aborted).toBe(false);
    expect(conversation.usage.total()).toMatchObject({ llm_input_tokens: 200, llm_output_tokens: 14 });
    expect(conversation.session.transcript.map(({ role, content }) => [role, content])).toEqual([
      ['agent', 'Hello, this is the shop.'],
      ['caller', 'Do you take credit cards? Or only cash?'],
      ['agent', 'Both, of course.'],
    ]);
    await conversation.session.finish('user_hangup');
  });

  it('to words the model is unsure of is held: heard only once the caller has stayed silent', async () => {
    const conversation = await call();
    conversation.callerSays('I already paid.');
    (await conversation.model.asked(1)).end({ type: 'text', text: 'Thank you.' }, usage(3));
    await settled();
    await vi.advanceTimersByTimeAsync(UNSURE_HOLD_MS - 100);
    expect(conversation.answersPlayed()).toEqual([]);
    await vi.advanceTimersByTimeAsync(100);
    await settled();
    expect(conversation.answersPlayed()).toHaveLength(1);
    expect(conversation.drafts).toEqual(['used']);
  });

  it('held, is thrown away with its end_call when the caller goes on within the hold', async () => {
    const conversation = await call();
    conversation.callerSays('I already paid.');
    (await conversation.model.asked(1)).end(
      { type: 'text', text: 'Thank you, goodbye.' },
      { type: 'tool', name: 'end_call', arguments: { goal_reached: true } },
    );
    await vi.advanceTimersByTimeAsync(UNSURE_HOLD_MS - 200);
    conversation.callerSays('But I was charged twice.');
    const second = await conversation.model.asked(2);
    await vi.advanceTimersByTimeAsync(UNSURE_HOLD_MS);
    expect(conversation.answersPlayed()).toEqual([]);
    expect(conversation.result).toBeNull();
    expect(conversation.session.history.some((message) => message.role === 'tool')).toBe(false);
    second.end({ type: 'text', text: 'I am sorry to hear that.' });
    await settled();
    expect(conversation.answersPlayed()).toHaveLength(1);
    expect(conversation.drafts).toEqual(['discarded', 'used']);
  });

  it('stops reading a thrown-away draft when the call ends', async () => {
    const conversation = await call();
    conversation.callerSays('Do you take credit cards?');
    await conversation.model.asked(1);
    conversation.callerSays('Or only cash?');
    await conversation.model.asked(2);
    expect(conversation.model.signals[0]!.aborted).toBe(false);
    await conversation.session.finish('user_hangup');
    expect(conversation.model.signals.map((signal) => signal!.aborted)).toEqual([true, true]);
  });
});
