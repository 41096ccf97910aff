import { loadCallAgent, markTransferBriefed, transferBriefing } from '@voice/core';
import { callOf, type CallConversationDeps } from './call-conversation';
import { phrasesFor } from './conversation/phrases';
import type { TwilioLine } from './transport/twilio-line';

/**
 * A warm transfer's colleague on the line (docs/telephony.md): their call's media stream names the
 * transfer. The agent speaks the call's summary to them in its own voice; heard to its end, the transfer
 * is marked briefed and the stream ended, so the carrier puts the colleague in the conference where the
 * caller joins them (the caller's conversation, waiting on the transfer, ends `transferred`). A
 * colleague whose transfer is no longer open (the caller hung up, the wait gave up) is told the caller
 * has gone instead. A stream whose token does not name a call is refused.
 *
 * Crash window: this process stopping mid-briefing drops the stream, which Twilio ends the same way:
 * the colleague joins the conference unbriefed while the transfer stays `answered`; the caller's
 * conversation gives up at its bound and the colleague's call is hung up.
 */
export async function briefColleague(
  deps: CallConversationDeps,
  line: TwilioLine,
  parameters: Record<string, string>,
): Promise<{ refused: string } | undefined> {
  const callId = callOf(deps, { kind: 'phone_call', parameters });
  if (!callId) return { refused: 'invalid or expired stream token' };
  const transferId = parameters.transferId!;
  const loaded = await loadCallAgent(deps.core, callId);
  if (!loaded) return { refused: 'the call has no agent' };
  const briefing = await transferBriefing(deps.core, { callId, transferId });
  const log = deps.logger.child({ callId, transferId });
  const { language, voice } = loaded.agent;
  // A transfer no longer open (the caller hung up, the wait gave up): the colleague is told so.
  const words = briefing?.summary ?? phrasesFor(language).transferGone;
  try {
    line.play(await deps.providers.tts.synthesize(words, { language, voice }), 'briefing');
    await line.drained();
  } catch (error) {
    // The summary is in the call's transcript: the colleague is put through unbriefed rather than left.
    log.warn({ err: error }, 'the colleague could not be briefed');
  }
  const briefed = briefing !== null && (await markTransferBriefed(deps.core, transferId));
  log.info({ briefed }, 'colleague briefed');
  line.close();
  line.endStream(briefed ? 'briefed' : 'the transfer has ended');
  return undefined;
}
