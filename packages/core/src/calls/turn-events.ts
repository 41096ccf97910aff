import type { CoreDeps } from '../deps';
import type { TurnEvent } from './conversation';
import { loadCallColumns } from './get-call';

/** A turn event placed in time: `at` is the transcript clock's start (ISO) plus `at_ms`. */
export interface CallTurnEvent extends TurnEvent {
  at: string;
}

/**
 * The call's interruptions and backchannels, in order, for the timeline on the dashboard's call page;
 * never for API keys: the spec's call keeps its fields. The transcript's clock starts with the media
 * stream, or, for a conversation without one (simulated), when the call was answered.
 */
export async function callTurnEvents(
  deps: CoreDeps,
  { accountId, callId }: { accountId: string; callId: string },
): Promise<CallTurnEvent[]> {
  const call = await loadCallColumns(deps.db, accountId, callId, {
    turnEvents: true,
    mediaStartedAt: true,
    connectedAt: true,
  });
  const start = call.mediaStartedAt ?? call.connectedAt;
  if (!start) return [];
  return (call.turnEvents as unknown as TurnEvent[]).map((event) => ({
    ...event,
    at: new Date(start.getTime() + event.at_ms).toISOString(),
  }));
}
