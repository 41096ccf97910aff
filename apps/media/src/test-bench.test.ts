import { demoModel, startLlmEmulator, type LlmEmulator } from '@voice/provider-emulators';
import { openAiLanguageModel } from '@voice/providers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionAgent } from './conversation/options';
import { runTextConversation } from './test-bench/text-conversation';

/**
 * The test bench's conversations, held as text through the live conversation engine: the emulated
 * model plays both the agent (the demo's booking, which follows a prompt that forbids booking) and the
 * simulated caller (the demo callee's lines, then it hangs up).
 */

let llm: LlmEmulator;
beforeAll(async () => {
  llm = await startLlmEmulator({ apiKey: 'sk-test', reply: demoModel });
});
afterAll(() => llm?.stop());

const model = () =>
  openAiLanguageModel({ apiKey: 'sk-test', baseUrl: llm.baseUrl, model: 'gpt-test', timeoutMs: 5_000 });

const agent = (prompt: string): SessionAgent => ({
  model: null,
  language: 'en',
  voice: 'en-steve',
  prompt,
  welcomeMessage: 'Hello, this is the dental clinic.',
  endCallEnabled: true,
  endCallCondition: '',
  transferEnabled: false,
  // A reminder would interrupt a caller taking its time: the bench has none.
  reminderAfterMs: 2_000,
});

const scenario = {
  name: 'Books a visit',
  persona: 'Dana, a patient',
  goal: 'Book Tuesday morning',
  criteria: ['The agent confirms "Tuesday morning"'],
  max_turns: 6,
};

const turns = (transcript: { role: string; content: string }[]) =>
  transcript.map(({ role, content }) => [role, content]);

describe('a test bench conversation', () => {
  it('is the agent’s conversation with the simulated caller, as a call would hold it', async () => {
    const held = await runTextConversation({
      agent: agent('You book dental appointments.'),
      llm: model(),
      scenario,
    });
    expect(held.end).toBe('ended');
    expect(turns(held.transcript)).toEqual([
      ['agent', 'Hello, this is the dental clinic.'],
      ['caller', 'Hi, this is Dana.'],
      ['agent', 'Nice to meet you, Dana! Which day would suit you for your appointment?'],
      ['caller', 'Tuesday morning works for me.'],
      ['agent', 'Tuesday morning it is. Thank you, goodbye!'],
    ]);
    // The caller's model was told its part, and saw the agent's words as the other side's.
    const callerRequest = llm.requests.find((request) =>
      String(request.messages[0]?.content).startsWith('You are playing a caller'),
    )!;
    expect(callerRequest.messages[0]!.content).toContain(
      'Persona: Dana, a patient\nYour goal: Book Tuesday morning',
    );
    expect(callerRequest.messages.slice(1)).toEqual([
      { role: 'user', content: 'Hello, this is the dental clinic.' },
    ]);
  });

  it('follows a broken prompt to its end', async () => {
    const held = await runTextConversation({
      agent: agent('Never book appointments.'),
      llm: model(),
      scenario,
    });
    expect(held.end).toBe('agent_hangup');
    expect(turns(held.transcript)).toEqual([
      ['agent', 'Hello, this is the dental clinic.'],
      ['caller', 'Hi, this is Dana.'],
      ['agent', 'I am sorry, I cannot book appointments. Please call back later. Goodbye.'],
    ]);
  });

  it('ends at the caller’s last turn when neither side ended it', async () => {
    const held = await runTextConversation({
      agent: agent('You book dental appointments.'),
      llm: model(),
      scenario: { ...scenario, max_turns: 1 },
    });
    expect(held.end).toBe('turn_limit');
    expect(turns(held.transcript).map(([role]) => role)).toEqual(['agent', 'caller', 'agent']);
  });
});
