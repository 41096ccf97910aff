import { createWebCall } from '@voice/core';
import { openWebCall } from '@voice/twilio-emulator';
import { describe, expect, it } from 'vitest';
import { askingFlowAgent } from './asking-flow-agent';
import { mediaTestHarness } from './media-test-harness';

/**
 * The caller's keypad on live calls: Twilio's `dtmf` messages on a phone line, the page's keypad on a web
 * call. Keys entered (ended by `#` or a 3 s pause) are a turn of the caller's; a secret's never stored.
 */

const media = mediaTestHarness();
const WELCOME = 'Hello, please enter your account number, then your PIN.';

describe('keypad input', () => {
  it('collects digits a phone caller types, ended by # or a pause, and never stores a secret', async () => {
    await media.start({
      heard: [],
      reply: (_, index) =>
        index === 0
          ? {
              say: 'Thank you. Now your PIN, please.',
              toolCalls: [{ name: 'collect_variable', arguments: { name: 'account_number', value: '1234' } }],
            }
          : {
              say: 'Your PIN is verified. Goodbye!',
              toolCalls: [
                { name: 'collect_variable', arguments: { name: '_pin', value: '9876' } },
                { name: 'end_call', arguments: { goal_reached: true, reason: 'verified' } },
              ],
            },
    });
    const callId = await media.answeredCall({ welcomeMessage: WELCOME });
    const keys = (digits: string) => [...digits].map((dtmf) => ({ dtmf }));
    const stream = media.connect(callId, [
      { untilAgentQuietMs: 300 },
      ...keys('1234#'),
      { untilAgentQuietMs: 300 },
      // No `#`: the pause ends the entry.
      ...keys('9876'),
      { pauseMs: 10_000 },
    ]);
    await stream.opened;
    const row = await media.storedCall(callId);

    const asked = media.harness.llm.requests.map((request) => request.messages.at(-1));
    expect(asked).toEqual([
      { role: 'user', content: 'keypad: 1234' },
      { role: 'user', content: 'keypad: 9876' },
    ]);
    expect(row.transcript.map(({ role, content }) => [role, content])).toEqual([
      ['agent', WELCOME],
      ['system', 'keypad: 1234#'],
      ['agent', 'Thank you. Now your PIN, please.'],
      ['system', 'keypad: ****'],
      ['agent', 'Your PIN is verified. Goodbye!'],
    ]);
    expect(row.conversationEndReason).toBe('ended');
    expect(row.varsCollected).toEqual({ account_number: '1234' });
    expect(JSON.stringify(row)).not.toContain('9876');
  });

  it("fills a flow's ask from a web call's keypad, a secret's keys masked as they are entered", async () => {
    await media.answeredCall({ welcomeMessage: WELCOME });
    await media.start({
      reply: (request) => {
        const said = String(request.messages.at(-1)?.content ?? '');
        return request.response_format?.json_schema?.name === 'caller_turn'
          ? { say: JSON.stringify({ intent: null, variables: { _pin: /\d+/.exec(said)?.[0] ?? '' } }) }
          : { status: 400, message: 'this flow asks the model nothing else' };
      },
      heard: [],
    });
    const { accountId } = await media.deps.db.agent.findFirstOrThrow();
    const agent = await askingFlowAgent(media.deps, accountId, {
      name: 'Keypad flow',
      question: 'Please type your PIN, then the pound key.',
      variables: [{ name: '_pin', type: 'number' }],
      goodbye: 'Thank you, goodbye!',
    });
    const created = await createWebCall(media.deps, { accountId, agent_id: agent.agent_id });
    const browser = openWebCall({
      url: media.harness.server.url.replace('/media/twilio', '/media/web'),
      accessToken: created.access_token,
      script: [{ untilAgentSaid: 1 }, ...[...'4321#'].map((key) => ({ key })), { untilAgentSaid: 2 }],
    });
    await browser.opened;
    expect((await browser.closed)?.code).toBe(1000);
    const call = await media.storedCall(created.call_id);
    expect(call.transcript.map(({ role, content }) => [role, content])).toEqual([
      ['system', 'node: Ask'],
      ['agent', 'Please type your PIN, then the pound key.'],
      ['system', 'keypad: ****#'],
      ['system', 'node: Goodbye'],
      ['agent', 'Thank you, goodbye!'],
    ]);
    expect(call.varsCollected).toEqual({});
    expect(JSON.stringify(call)).not.toContain('4321');
  });
});
