import type { Call } from '@voice/db';
import type { CoreDeps } from '../../deps';
import { AppError } from '../../errors';
import { pauseCampaignFor } from '../../campaigns/control-campaign';
import { ACCOUNT_REFUSED_REASON, CarrierAccountRefused, CarrierRefusal } from '../../telephony/carrier';
import type { CallRuntime } from '../call-runtime';
import { finishCall } from '../finish-call';
import { webCallProgress } from '../web-call-progress';
import {
  ORDER,
  awaitingEvents,
  done,
  loadCallForProgress,
  TERMINAL,
  type CallProgress,
} from './call-progress';
import { applyState } from './carrier-events';

/**
 * The way into every step of a call after its dial (the carrier's events, the safety net's look, the
 * service ending it): a call that has ended is done; a call the carrier does not have yet (its dial
 * never got as far as the carrier's id: retried after a crash, or a signal that came first) is dialled
 * here, by placeCall, the one way a dial goes out; any other goes on to `step` with its carrier id
 * (`carrierCallIdOf` says where it is, the call's row unless given).
 */
export async function afterDial(
  deps: CoreDeps & CallRuntime,
  callId: string,
  step: (call: Call, carrierCallId: string) => Promise<CallProgress>,
  carrierCallIdOf: (call: Call) => string | null | undefined = (call) => call.carrierCallId,
): Promise<CallProgress> {
  const call = await loadCallForProgress(deps.db, callId);
  if (TERMINAL.has(call.status)) return done(call.status);
  const carrierCallId = carrierCallIdOf(call);
  if (!carrierCallId) return placeCall(deps, callId);
  return step(call, carrierCallId);
}

/** How long a dial is retried while the carrier is unreachable or overloaded (see CoreConfig). */
export const DEFAULT_DIAL_RETRY_BOUND_MS = 120_000;

/**
 * Dials through the carrier at most once (a web call is not dialled: webCallProgress says where it is). The attempt is recorded before the carrier is asked; an
 * activity retried after a crash in between (the carrier accepted the call, its id was never stored)
 * first looks for the call it may already have placed (the carrier's calls from this number to that
 * one since the first attempt, not claimed by another call) and adopts it rather than dialing again.
 * Then it leaves the call to the carrier's events, with the safety net's first look due when the
 * carrier says.
 *
 * Carrier failures settle: a refusal ends the call `error` at once (a refused account also pauses the
 * call's campaign); an unreachable or overloaded carrier (network errors, 429, 5xx) fails the activity
 * to be retried with backoff, until `dialRetryBoundMs` after the first attempt, when the call ends
 * `error` (`failed`, its last transition `carrier_unavailable`).
 */
export async function placeCall(deps: CoreDeps & CallRuntime, callId: string): Promise<CallProgress> {
  const call = await deps.db.call.findUnique({ where: { id: callId } });
  if (!call) throw new AppError('NOT_FOUND', `Call ${callId} does not exist`);
  if (TERMINAL.has(call.status)) return done(call.status);
  // A web call has no carrier: its browser connects to the media server by itself.
  if (call.callType === 'web_call') return webCallProgress(deps, call);
  if (call.carrierCallId) return awaitingEvents(deps, call.status, call.carrierCallId);
  const firstAttemptAt = call.dialAttemptedAt;
  // What the carrier is asked, each failure classified: a refusal settles the call, anything else is
  // retried within the bound.
  const atCarrier = async <T>(request: () => Promise<T>): Promise<T | CallProgress> => {
    try {
      return await request();
    } catch (error) {
      const now = deps.clock.now();
      if (error instanceof CarrierRefusal) return refused(deps, call, error, now);
      if (withinDialBound(deps, firstAttemptAt ?? now, now)) throw error;
      return giveUpDial(deps, call, now, 'carrier_unavailable');
    }
  };
  if (firstAttemptAt) {
    const adopted = await atCarrier(() => findPlacedCall(deps, call, firstAttemptAt));
    if (adopted === 'ambiguous') {
      const now = deps.clock.now();
      if (withinDialBound(deps, firstAttemptAt, now))
        return { status: call.status, terminal: false, nextCheckInMs: AMBIGUOUS_CHECK_MS };
      // No callback named the call in all that time: it is not known to be placed, and a new dial
      // could be a second one. It ends rather than risk that.
      return giveUpDial(deps, call, now, 'carrier_call_unknown');
    }
    if (typeof adopted === 'string') return awaitingEvents(deps, call.status, adopted);
    if (adopted) return adopted;
  }
  // The attempt is recorded before the carrier is asked (the first attempt's time stays), in the same
  // statement that reads the agent's voicemail setting (whether to ask the carrier to detect answering
  // machines) and the ring time: a campaign's first, then the agent's; the carrier's default without.
  const placedAt = deps.clock.now();
  const [settings] = await deps.db.$queryRaw<
    { voicemailAction: string | null; ringTimeoutSeconds: number | null }[]
  >`
    WITH attempt AS (
      UPDATE calls SET dial_attempted_at = COALESCE(dial_attempted_at, ${placedAt})
      WHERE id = ${callId}::uuid
      RETURNING agent_id, campaign_id
    )
    SELECT a.voicemail_action AS "voicemailAction",
      COALESCE(k.ring_timeout_seconds, a.ring_timeout_seconds) AS "ringTimeoutSeconds"
    FROM attempt
      LEFT JOIN agents a ON a.id = attempt.agent_id
      LEFT JOIN campaigns k ON k.id = attempt.campaign_id`;
  const ringTimeoutSeconds = settings?.ringTimeoutSeconds ?? undefined;
  const placed = await atCarrier(() =>
    deps.carrier.placeCall({
      callId,
      from: call.fromNumber,
      to: call.toNumber,
      placedAt,
      // Detecting answering machines costs time and money: only for agents that act on one.
      detectMachine: (settings?.voicemailAction ?? 'continue') !== 'continue',
      ...(ringTimeoutSeconds ? { ringTimeoutSeconds } : {}),
    }),
  );
  if ('terminal' in placed) return placed;
  const { carrierCallId, state } = placed;
  await deps.db.call.update({ where: { id: callId }, data: { carrierCallId } });
  // The carrier knew where the call stood already: recorded now, not waited for.
  if (state && state.phase !== 'dialing')
    return applyState(deps, { ...call, carrierCallId }, carrierCallId, state, placedAt);
  return awaitingEvents(deps, call.status, carrierCallId);
}

/** Whether a dial first attempted at `firstAttemptAt` may still be retried (see CoreConfig). */
const withinDialBound = (deps: CoreDeps, firstAttemptAt: Date, now: Date) =>
  now.getTime() - firstAttemptAt.getTime() < (deps.config.dialRetryBoundMs ?? DEFAULT_DIAL_RETRY_BOUND_MS);

/** A dial given up past its bound: the call ends `error` (`failed`), its last transition saying why. */
async function giveUpDial(deps: CoreDeps & CallRuntime, call: Call, now: Date, reason: string) {
  return done(
    await finishCall(deps, call, { outcome: 'failed', answeredAt: null, endedAt: now, endReason: reason }),
  );
}

/**
 * The carrier refused the call: it ends `error` with the carrier's reason. A refused account pauses the
 * call's campaign first (so a crash in between finds the call still open, and the retry pauses again),
 * rather than letting it burn its contacts on the same refusal.
 */
async function refused(
  deps: CoreDeps & CallRuntime,
  call: Call,
  refusal: CarrierRefusal,
  at: Date,
): Promise<CallProgress> {
  const accountRefused = refusal instanceof CarrierAccountRefused;
  if (accountRefused && call.campaignId)
    await pauseCampaignFor(
      deps,
      call.campaignId,
      `The carrier refused the account's credentials (${refusal.detail ?? 'no detail'}). ` +
        'Fix the carrier connection, then resume the campaign.',
    );
  return done(
    await finishCall(deps, call, {
      outcome: refusal.outcome,
      answeredAt: null,
      endedAt: at,
      ...(accountRefused ? { endReason: ACCOUNT_REFUSED_REASON } : {}),
    }),
  );
}

/** How long a retried dial waits for the carrier's callbacks to name its call when the list cannot. */
const AMBIGUOUS_CHECK_MS = 2_000;

/**
 * The carrier call an earlier attempt placed for this call, adopted; null when there is none. What is
 * unique to our call is its callbacks' URL (it carries the call's id): the first callback records the
 * carrier's id on the call (recordCarrierCallId), and the retry finds it there. Without a callback
 * yet, the carrier's list of calls between the two numbers since the first attempt is used only when
 * it cannot be another call's: one call not claimed by another row, and no other call of ours between
 * the same numbers waiting to learn its carrier id. Otherwise the dial waits for the callbacks
 * (`ambiguous`), within the dial's retry bound.
 */
async function findPlacedCall(
  deps: CoreDeps & CallRuntime,
  call: Call,
  since: Date,
): Promise<string | 'ambiguous' | null> {
  const found = await deps.carrier.findPlacedCalls({ from: call.fromNumber, to: call.toNumber, since });
  if (found.length === 0) return null;
  const claimed = await deps.db.call.findMany({
    where: { carrierCallId: { in: found } },
    select: { carrierCallId: true },
  });
  const taken = new Set(claimed.map((row) => row.carrierCallId));
  const unclaimed = found.filter((id) => !taken.has(id));
  if (unclaimed.length === 0) return null;
  const siblings = await deps.db.call.count({
    where: {
      id: { not: call.id },
      fromNumber: call.fromNumber,
      toNumber: call.toNumber,
      carrierCallId: null,
      dialAttemptedAt: { not: null },
      status: { in: ORDER },
    },
  });
  if (unclaimed.length > 1 || siblings > 0) return 'ambiguous';
  const carrierCallId = unclaimed[0]!;
  await recordCarrierCallId(deps, call.id, carrierCallId);
  return carrierCallId;
}

/**
 * Records the carrier's id of a call that has none yet: from the callback the carrier sent to the
 * call's own URL, or an adoption. A carrier id another call holds already is left to it.
 */
export async function recordCarrierCallId(
  deps: CoreDeps,
  callId: string,
  carrierCallId: string,
): Promise<void> {
  try {
    await deps.db.call.updateMany({ where: { id: callId, carrierCallId: null }, data: { carrierCallId } });
  } catch (error) {
    if ((error as { code?: string }).code !== 'P2002') throw error;
  }
}
