import { speak } from '@voice/audio';
import { waitFor } from '@voice/dev';
import type { ServiceEnd } from '@voice/core';
import { describe, expect, it } from 'vitest';
import { mediaTestHarness, spokenMs } from './media-test-harness';

/**
 * A warm transfer on the media server: the caller on hold (music, never silence) while the model writes
 * the summary and the workflow (stood in for: its requests are recorded) dials the colleague; the
 * colleague's own stream hears the summary, is ended by the service, and the caller's conversation ends
 * `transferred` into the transfer's conference. A colleague never briefed within the bound is given up
 * on (the workflow asked to hang up on them), and the agent is back with the caller.
 */

const media = mediaTestHarness();
const WELCOME = 'Hello, this is the clinic.';
const ASKED = 'Can I speak to a person?';
const SUMMARY = 'Dana wants to speak to a person about her bill.';
const COLLEAGUE = '+14155550123';

type WarmStep = Extract<ServiceEnd, { action: 'warm_transfer' }>;

/** The workflow's warm transfer steps asked so far. */
const warmSteps = () =>
  media.harness.ends
    .map(({ request }) => request)
    .filter((request): request is WarmStep => request.action === 'warm_transfer');

/** The model: the transfer at the caller's words, then the summary, then a goodbye. */
const replies = [
  { say: 'Let me find a colleague for you.', toolCalls: [{ name: 'transfer_call', arguments: {} }] },
  { say: SUMMARY },
];

/** The longest stretch (ms) between two frames the caller heard from `from` to `to` (ms since the stream opened). */
function longestGap(
  received: { at: number; message: Record<string, unknown> }[],
  from: number,
  to = Number.POSITIVE_INFINITY,
) {
  const frames = received.filter(({ at, message }) => at >= from && at <= to && message.event === 'media');
  let longest = 0;
  for (let i = 1; i < frames.length; i++) longest = Math.max(longest, frames[i]!.at - frames[i - 1]!.at);
  return longest;
}

describe('a warm transfer', () => {
  it('briefs the colleague on their own stream, then ends the caller’s conversation into the conference', async () => {
    await media.start({
      heard: [ASKED],
      reply: (_request, index) => replies[index] ?? { say: 'Goodbye.' },
    });
    const callId = await media.answeredCall({
      welcomeMessage: WELCOME,
      transferTo: COLLEAGUE,
      settings: { transfer_mode: 'warm' },
    });
    const caller = media.connect(callId, [{ untilAgentQuietMs: 800 }, { text: ASKED }, { pauseMs: 30_000 }]);
    await waitFor('the colleague to be dialed', 20_000, async () => warmSteps().length > 0);
    const { transferId } = warmSteps()[0]!;
    expect(warmSteps()).toEqual([{ action: 'warm_transfer', transferId, step: 'dial' }]);
    const row = await media.deps.db.callTransfer.findUniqueOrThrow({ where: { id: transferId } });
    expect(row).toMatchObject({ callId, destination: COLLEAGUE, summary: SUMMARY, status: 'requested' });

    // The carrier's side: the colleague answers, and their call's stream opens naming the transfer.
    await media.deps.db.callTransfer.update({ where: { id: transferId }, data: { status: 'answered' } });
    const colleague = media.connect(callId, [], { parameters: { transferId } });
    await colleague.closed;
    expect(colleague.record.closed).toMatchObject({ by: 'service', code: 1000, reason: 'briefed' });
    const heard = colleague.record.played();
    expect(spokenMs(heard)).toBeGreaterThanOrEqual(spokenMs(await speak(SUMMARY)) * 0.9);

    const stored = await media.storedCall(callId);
    expect(stored.conversationEndReason).toBe('transferred');
    expect(media.harness.ends.at(-1)).toEqual({
      callId,
      request: { action: 'transfer', destination: COLLEAGUE, conference: `transfer-${transferId}` },
    });
    expect(
      stored.transcript.filter((entry) => entry.role === 'system').map((entry) => entry.content),
    ).toEqual([
      'transfer (warm): the caller on hold',
      `transfer: calling the colleague, with the summary: ${SUMMARY}`,
      'transfer: the colleague answered; briefing them',
      'transfer: the colleague was briefed; joining the caller to them',
    ]);
    // On hold, the caller heard music, never more than a moment's silence.
    const holdAt = stored.transcript.find((entry) => entry.role === 'system')!.timestamp_ms;
    expect(longestGap(caller.record.received, holdAt)).toBeLessThan(500);

    // A colleague's stream for a transfer no longer open is told the caller has gone, and ended.
    const late = media.connect(callId, [], { parameters: { transferId } });
    await late.closed;
    expect(late.record.closed).toMatchObject({ by: 'service', code: 1000, reason: 'the transfer has ended' });
    const gone = 'Sorry, the caller is no longer waiting. You can hang up.';
    expect(spokenMs(late.record.played())).toBeGreaterThanOrEqual(spokenMs(await speak(gone)) * 0.9);
  });

  it('gives up on a colleague not briefed within the bound, and the agent is back with the caller', async () => {
    const waitMs = 1_500;
    await media.start({
      heard: [ASKED, 'No thanks, bye.'],
      reply: (_request, index) =>
        replies[index] ?? {
          say: 'Goodbye.',
          toolCalls: [{ name: 'end_call', arguments: { goal_reached: false } }],
        },
      transferWaitMs: waitMs,
    });
    const callId = await media.answeredCall({
      welcomeMessage: WELCOME,
      transferTo: COLLEAGUE,
      settings: { transfer_mode: 'warm' },
    });
    const caller = media.connect(callId, [
      { untilAgentQuietMs: 800 },
      { text: ASKED },
      { untilAgentQuietMs: 800 },
      { text: 'No thanks, bye.' },
    ]);
    const stored = await media.storedCall(callId);
    const { transferId } = warmSteps()[0]!;
    // Given up on: abandoned, and the workflow asked to hang up on the colleague.
    expect(warmSteps()).toEqual([
      { action: 'warm_transfer', transferId, step: 'dial' },
      { action: 'warm_transfer', transferId, step: 'cancel' },
    ]);
    expect(await media.deps.db.callTransfer.findUniqueOrThrow({ where: { id: transferId } })).toMatchObject({
      status: 'abandoned',
    });
    const entries = stored.transcript.map(({ role, content }) => [role, content]);
    expect(entries.slice(2)).toEqual([
      ['agent', 'Let me find a colleague for you.'],
      ['system', 'transfer (warm): the caller on hold'],
      ['system', `transfer: calling the colleague, with the summary: ${SUMMARY}`],
      ['system', 'transfer: no colleague took the call (no_answer); back with the caller'],
      [
        'agent',
        'I am sorry, none of my colleagues could take your call just now. Is there anything else I can help with?',
      ],
      ['caller', 'No thanks, bye.'],
      ['agent', 'Goodbye.'],
    ]);
    // Back within the bound (and a moment to write the summary), with music until the agent speaks again:
    // never silent meanwhile.
    const hold = stored.transcript[3]!.timestamp_ms;
    const back = stored.transcript[5]!.timestamp_ms;
    expect(back - hold).toBeGreaterThanOrEqual(waitMs);
    expect(back - hold).toBeLessThan(waitMs + 2_000);
    expect(longestGap(caller.record.received, hold, back + 1_000)).toBeLessThan(1_000);
    expect(stored.conversationEndReason).toBe('agent_hangup');
  });
});
