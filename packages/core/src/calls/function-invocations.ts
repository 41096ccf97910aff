import type { CoreDeps } from '../deps';
import type { FunctionInvocation } from '../flows/call-function';
import { loadCall } from './get-call';

/**
 * A flow call's function requests and what came back, in order, for the dashboard's call page (never
 * for API keys: the spec keeps flow-function payloads from API-key callers).
 */
export async function callFunctionInvocations(
  deps: CoreDeps,
  { accountId, callId }: { accountId: string; callId: string },
): Promise<FunctionInvocation[]> {
  const call = await loadCall(deps.db, accountId, callId);
  return call.functionInvocations as unknown as FunctionInvocation[];
}
