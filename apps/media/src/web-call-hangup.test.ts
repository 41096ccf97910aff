import { AppError, createWebCall, hangUpCall } from '@voice/core';
import { waitFor } from '@voice/dev';
import { openWebCall } from '@voice/twilio-emulator';
import { describe, expect, it } from 'vitest';
import { mediaTestHarness } from './media-test-harness';

/**
 * An operator hangs up a web call (REST call-hangup, tRPC calls.hangup, the dashboard's call page): the
 * request is recorded on the call and announced (a trigger, LISTEN), and the media server holding the
 * conversation ends it as the agent hanging up.
 */

const media = mediaTestHarness();
const WELCOME = 'Hello, this is the clinic. How can I help you today?';

async function webCall() {
  const agent = await media.deps.db.agent.findFirstOrThrow({ orderBy: { createdAt: 'asc' } });
  const created = await createWebCall(media.deps, { accountId: agent.accountId, agent_id: agent.id });
  return { ...created, accountId: agent.accountId };
}
const webUrl = () => media.harness.server.url.replace('/media/twilio', '/media/web');

describe('an operator hanging up a web call', () => {
  it('ends the live conversation as agent_hangup within 2 s, its line closed; a second hang-up is refused', async () => {
    await media.answeredCall({ welcomeMessage: WELCOME });
    await media.start({ heard: [], reply: () => ({ say: 'Hi.' }) });
    const call = await webCall();
    const browser = openWebCall({
      url: webUrl(),
      accessToken: call.access_token,
      script: [{ pauseMs: 30_000 }],
    });
    await browser.opened;
    // A second of the welcome played (50 frames of 20 ms), so some of it was heard.
    await waitFor('the welcome to be heard', 10_000, async () => browser.record.agentAudio.length > 50);

    const asked = performance.now();
    expect(await hangUpCall(media.deps, { accountId: call.accountId, callId: call.call_id })).toEqual({
      call_id: call.call_id,
      call_status: 'ongoing',
    });
    expect((await browser.closed)?.code).toBe(1000);
    expect(performance.now() - asked).toBeLessThan(2_000);
    const row = await media.storedCall(call.call_id);
    expect(row.conversationEndReason).toBe('agent_hangup');
    expect(row.hangupRequestedAt).not.toBeNull();
    expect(browser.record.ended).toBe('agent_hangup');
    // What the caller heard of the welcome is kept, marked cut.
    const [heard, ...more] = row.transcript;
    expect(more).toEqual([]);
    expect(heard!.role).toBe('agent');
    expect(WELCOME.startsWith(heard!.content) && heard!.content.length < WELCOME.length).toBe(true);
    expect(row.cutEntries).toEqual([0]);

    await expect(hangUpCall(media.deps, { accountId: call.accountId, callId: call.call_id })).rejects.toThrow(
      AppError,
    );
  });

  it('hung up before the browser connected, ends the call as soon as it does', async () => {
    await media.answeredCall({ welcomeMessage: WELCOME });
    await media.start({ heard: [], reply: () => ({ say: 'Hi.' }) });
    const call = await webCall();
    await hangUpCall(media.deps, { accountId: call.accountId, callId: call.call_id });
    const browser = openWebCall({
      url: webUrl(),
      accessToken: call.access_token,
      script: [{ pauseMs: 30_000 }],
    });
    expect((await browser.closed)?.code).toBe(1000);
    const row = await media.storedCall(call.call_id);
    expect(row.conversationEndReason).toBe('agent_hangup');
  });
});
