import type { CoreDeps } from '../deps';
import { loadCallColumns } from './get-call';

/**
 * The call's agent entries the caller cut short (a barge-in, a hang-up), as indices into its transcript,
 * for the dashboard's call page; never for API keys: the spec's transcript entry stays exactly
 * `{role, content, timestamp_ms}`.
 */
export async function callCutEntries(
  deps: CoreDeps,
  { accountId, callId }: { accountId: string; callId: string },
): Promise<number[]> {
  const call = await loadCallColumns(deps.db, accountId, callId, { cutEntries: true });
  return call.cutEntries as number[];
}
