import type { Call, CallStatus } from '@voice/db';
import type { CoreDeps } from '../../deps';
import { ANSWERED_OUTCOMES, type CarrierCallState, type CarrierEvent } from '../../telephony/carrier';
import type { CallRuntime } from '../call-runtime';
import { advance, awaitingEvents, later, type CallProgress } from './call-progress';
import { endAsKept, endWhenHeard } from './conversation-wait';
import { afterDial } from './place-call';
import { endByService } from './service-end';
import { requestVoicemailMessage } from '../call-requests';

/** Asks the carrier where the call stands and records every transition since the last look. */
export function checkCall(deps: CoreDeps & CallRuntime, callId: string): Promise<CallProgress> {
  return afterDial(deps, callId, (call, carrierCallId) =>
    // The carrier has reported the end already: it is kept.
    call.carrierEnd ? endAsKept(deps, call, call.carrierEnd) : progress(deps, call, carrierCallId),
  );
}

async function progress(
  deps: CoreDeps & CallRuntime,
  call: Call,
  carrierCallId: string,
): Promise<CallProgress> {
  const now = deps.clock.now();
  return applyState(deps, call, carrierCallId, await deps.carrier.getCallState(carrierCallId, now), now);
}

/** Records the transitions up to where the carrier says the call stands at `now`. */
export async function applyState(
  deps: CoreDeps & CallRuntime,
  call: Call,
  carrierCallId: string,
  state: CarrierCallState,
  now: Date,
): Promise<CallProgress> {
  const inProgress = (status: CallStatus) => awaitingEvents(deps, status, carrierCallId);
  switch (state.phase) {
    case 'dialing':
      return inProgress(call.status);
    case 'ringing':
      await advance(deps, call, call.status, 'ringing', now);
      return inProgress(later(call.status, 'ringing'));
    case 'answered':
      await advance(deps, call, call.status, 'ringing', state.answeredAt);
      await advance(deps, call, 'ringing', 'ongoing', state.answeredAt);
      return inProgress('ongoing');
    case 'ended':
      return endWhenHeard(deps, call, state);
  }
}

/**
 * Applies the carrier's events for a call (signals the call workflow received since it last looked):
 * in the carrier's order (sequence number, then time), each at most once, never moving the call back,
 * and nothing at all once it has ended. Events of another carrier call than the one placed for it
 * change nothing. A carrier id the dial did not get to store is taken from the events.
 */
export function applyCarrierEvents(
  deps: CoreDeps & CallRuntime,
  callId: string,
  events: readonly CarrierEvent[],
): Promise<CallProgress> {
  return afterDial(
    deps,
    callId,
    (call, carrierCallId) => applyEvents(deps, call, carrierCallId, events),
    // Events may bring the carrier's id before the dial recorded it.
    (call) => call.carrierCallId ?? events[0]?.carrierCallId,
  );
}

async function applyEvents(
  deps: CoreDeps & CallRuntime,
  call: Call,
  carrierCallId: string,
  events: readonly CarrierEvent[],
): Promise<CallProgress> {
  // The carrier has reported the end already: later events change nothing.
  if (call.carrierEnd) return endAsKept(deps, call, call.carrierEnd);
  if (!call.carrierCallId)
    await deps.db.call.updateMany({ where: { id: call.id, carrierCallId: null }, data: { carrierCallId } });
  const ordered = events
    .filter((event) => event.carrierCallId === carrierCallId)
    .sort((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0) || Date.parse(a.at) - Date.parse(b.at));
  const find = <K extends CarrierEvent['kind']>(kind: K) =>
    ordered.find((event): event is Extract<CarrierEvent, { kind: K }> => event.kind === kind);
  const ringing = find('ringing');
  const answered = find('answered');
  const ended = find('ended');
  // The last word of the carrier's machine detection, wherever it came.
  const answeredBy = ordered
    .map((event) => ('answeredBy' in event ? event.answeredBy : undefined))
    .findLast((value) => value !== undefined);

  // Transitions first, each at the carrier's time, so the end (which records any it did not see) finds them.
  let status = call.status;
  if (ringing || answered) {
    await advance(deps, call, status, 'ringing', new Date((ringing ?? answered)!.at));
    status = later(status, 'ringing');
  }
  if (answered) {
    await advance(deps, call, status, 'ongoing', new Date(answered.at));
    status = 'ongoing';
  }
  if (ended) {
    const endedAt = new Date(ended.at);
    let answeredAt: Date | null = null;
    if (ANSWERED_OUTCOMES.has(ended.outcome)) {
      // The carrier's own talk time, where it gives one, makes the call's duration.
      answeredAt =
        ended.durationMs !== undefined
          ? new Date(endedAt.getTime() - ended.durationMs)
          : answered
            ? new Date(answered.at)
            : (call.connectedAt ?? endedAt);
    }
    return endWhenHeard(deps, call, { outcome: ended.outcome, answeredAt, endedAt, answeredBy });
  }
  if (answeredBy && answeredBy !== call.answeredBy)
    await deps.db.call.update({ where: { id: call.id }, data: { answeredBy } });
  // An answering machine is met once the call is answered: at its detection, or at the answer when the
  // detection's callback overtook the answer's (the two race; the detection was recorded then). Meeting
  // it again (a retried step, a repeated event) asks nothing more.
  const machineDetected =
    find('detected')?.answeredBy === 'machine' || (answered !== undefined && call.answeredBy === 'machine');
  if (machineDetected && status === 'ongoing') await answerMachine(deps, call, carrierCallId);
  return awaitingEvents(deps, status, carrierCallId);
}

/**
 * An answering machine took the call (the carrier's detection waited for the end of its greeting, at
 * the beep), as the agent is set to meet one: `hang_up` and `retry_later` hang up (the agent ended the
 * call); `leave_message` asks the call's live conversation to speak the agent's message in its own
 * voice, then hang up (call-requests.ts); `continue` lets the conversation go on.
 */
async function answerMachine(deps: CoreDeps & CallRuntime, call: Call, carrierCallId: string): Promise<void> {
  const agent = await deps.db.agent.findUniqueOrThrow({
    where: { id: call.agentId ?? '' },
    select: { voicemailAction: true },
  });
  if (agent.voicemailAction === 'continue') return;
  if (agent.voicemailAction === 'leave_message') {
    await requestVoicemailMessage(deps, call.id);
    return;
  }
  await endByService(deps, call, 'agent_hangup', (now) => deps.carrier.hangUp(carrierCallId, now));
}
