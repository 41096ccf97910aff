import { loadAgent } from '../agents';
import type { CoreDeps } from '../deps';
import type { TurnLatency } from './conversation';
import { loadCall } from './get-call';

/**
 * The answers' latencies the media server stores with a live conversation (TurnLatency), for the
 * dashboard: each turn with its voice-to-voice time (the caller stopping to the answer's first frame),
 * and the median and 95th percentile of a call's or an agent's recent answers. Not part of the REST API:
 * the spec's transcript entry stays exactly `{role, content, timestamp_ms}`.
 */

export interface LatencySummary {
  /** Answers with a voice-to-voice time. */
  answers: number;
  p50_ms: number | null;
  p95_ms: number | null;
}

/** Voice to voice: from the caller's last word to the answer's first frame; null when unknown. */
export const voiceToVoiceMs = (turn: TurnLatency) =>
  turn.caller_stopped_ms === null ? null : turn.first_frame_ms - turn.caller_stopped_ms;

/** A percentile by nearest rank (the value at or above p % of the sorted values). */
function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function summarize(turns: readonly TurnLatency[]): LatencySummary {
  const times = turns
    .map(voiceToVoiceMs)
    .filter((ms): ms is number => ms !== null)
    .sort((a, b) => a - b);
  return { answers: times.length, p50_ms: percentile(times, 50), p95_ms: percentile(times, 95) };
}

export async function callLatency(deps: CoreDeps, ids: { accountId: string; callId: string }) {
  const call = await loadCall(deps.db, ids.accountId, ids.callId);
  const turns = call.turnLatencies as unknown as TurnLatency[];
  return {
    turns: turns.map((turn) => ({ ...turn, voice_to_voice_ms: voiceToVoiceMs(turn) })),
    ...summarize(turns),
  };
}

/** How many of an agent's latest calls with live answers its summary covers. */
const RECENT_CALLS = 100;

export async function agentLatency(
  deps: CoreDeps,
  { accountId, agentId }: { accountId: string; agentId: string },
): Promise<LatencySummary & { calls: number }> {
  const agent = await loadAgent(deps.db, accountId, agentId);
  const rows = await deps.db.$queryRaw<{ turn_latencies: TurnLatency[] }[]>`
    SELECT turn_latencies FROM calls
     WHERE account_id = ${accountId}::uuid AND agent_id = ${agent.id}::uuid AND deleted_at IS NULL
       AND jsonb_array_length(turn_latencies) > 0
     ORDER BY created_at DESC LIMIT ${RECENT_CALLS}`;
  return { calls: rows.length, ...summarize(rows.flatMap((row) => row.turn_latencies)) };
}
