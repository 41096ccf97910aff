import { loadCallAgent, markTransferBriefed, transferBriefing } from '@voice/core';
import { callOf, type CallConversationDeps } from './call-conversation';
import type { TwilioLine } from './transport/twilio-line';

/**
 * A warm transfer's colleague on the line (docs/telephony.md): their call's media stream names the
 * transfer. The agent speaks the call's summary to them in its own voice; heard to its end, the transfer
 * is marked briefed and the stream ended, so the carrier puts the colleague in the conference where the
 * caller joins them (the caller's conversation, waiting on the transfer, ends `transferred`). A stream
 * whose token does not name the transfer's call, or whose transfer is no longer open (the caller hung up,
 * the wait gave up), is refused: the colleague's call is being hung up.
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
  const briefing = await transferBriefing(deps.core, { callId, transferId });
  const loaded = briefing && (await loadCallAgent(deps.core, callId));
  if (!briefing || !loaded) return { refused: 'the transfer is no longer open' };
  const log = deps.logger.child({ callId, transferId });
  const { language, voice } = loaded.agent;
  try {
    line.play(await deps.providers.tts.synthesize(briefing.summary, { language, voice }), 'briefing');
    await line.drained();
  } catch (error) {
    // The summary is in the call's transcript: the colleague is put through unbriefed rather than left.
    log.warn({ err: error }, 'the colleague could not be briefed');
  }
  const briefed = await markTransferBriefed(deps.core, transferId);
  log.info({ briefed }, 'colleague briefed');
  line.close();
  line.endStream(briefed ? 'briefed' : 'the transfer has ended');
  return undefined;
}
