import { randomUUID } from 'node:crypto';
import type { CoreDeps, StructuredModel } from '../deps';
import { AppError } from '../errors';
import { loadCall, loadCallColumns } from '../calls/get-call';
import { isTerminal } from '../calls/call-view';
import type { TranscriptEntry } from '../calls/conversation';
import { analyzeTranscript } from './analyze-call';

/** A call's analysis as the dashboard shows it: the current one, then the ones it replaced, newest first. */
export interface CallAnalysisView {
  summary: string | null;
  vars_extracted: Record<string, string>;
  detected_gender: string | null;
  history: {
    summary: string | null;
    vars_extracted: Record<string, string>;
    detected_gender: string | null;
    replaced_at: string;
    replaced_by: string;
  }[];
}

export async function callAnalysis(
  { db }: CoreDeps,
  { accountId, callId }: { accountId: string; callId: string },
): Promise<CallAnalysisView> {
  const call = await loadCallColumns(db, accountId, callId, {
    id: true,
    summary: true,
    varsExtracted: true,
    detectedGender: true,
  });
  const history = await db.callAnalysisHistory.findMany({
    where: { callId: call.id },
    orderBy: { replacedAt: 'desc' },
  });
  return {
    summary: call.summary,
    vars_extracted: call.varsExtracted as Record<string, string>,
    detected_gender: call.detectedGender,
    history: history.map((entry) => ({
      summary: entry.summary,
      vars_extracted: entry.varsExtracted as Record<string, string>,
      detected_gender: entry.detectedGender,
      replaced_at: entry.replacedAt.toISOString(),
      replaced_by: entry.replacedBy,
    })),
  };
}

/**
 * Re-extraction (the dashboard's Re-extract; the API's call-extract was removed): runs the post-call
 * analysis again with the agent's current extracted variables. The analysis it replaces is kept with who
 * replaced it, in the same transaction as the new one, so none is lost however it stops. No webhook
 * fires: the call's `call_ended` was delivered with the analysis it had.
 */
export async function reanalyzeCall(
  deps: CoreDeps & { analyst?: StructuredModel | undefined },
  { accountId, callId, userId }: { accountId: string; callId: string; userId: string },
): Promise<CallAnalysisView> {
  const call = await loadCall(deps.db, accountId, callId);
  const user = await deps.db.user.findFirst({ where: { id: userId, accountId }, select: { email: true } });
  if (!user) throw new AppError('UNAUTHORIZED', 'Unauthorized');
  if (!deps.analyst)
    throw new AppError(
      'UNPROCESSABLE',
      'No language model is configured here to analyse calls (LLM_API_KEY)',
    );
  const transcript = call.transcript as unknown as TranscriptEntry[];
  if (!isTerminal(call.status) || transcript.length === 0)
    throw new AppError('CONFLICT', 'Only a call that has ended with something said can be analysed again');
  const agent = call.agentId ? await deps.db.agent.findUnique({ where: { id: call.agentId } }) : null;
  if (!agent) throw new AppError('CONFLICT', 'The call has no agent to analyse it with');
  const analysis = await analyzeTranscript(deps.analyst, agent, transcript).catch(() => {
    // Nothing is written: the analysis the call has stays.
    throw new AppError('PROVIDER_UNAVAILABLE', 'The language model gave no analysis; try again');
  });
  await deps.db.$transaction(async (tx) => {
    // The analysis being replaced, read under the row's lock: two re-extractions at once each keep
    // what the other replaced.
    const [current] = await tx.$queryRaw<
      { summary: string | null; vars_extracted: unknown; detected_gender: string | null }[]
    >`SELECT summary, vars_extracted, detected_gender FROM calls WHERE id = ${call.id}::uuid FOR UPDATE`;
    await tx.callAnalysisHistory.create({
      data: {
        id: randomUUID(),
        callId: call.id,
        summary: current!.summary,
        varsExtracted: current!.vars_extracted as object,
        detectedGender: current!.detected_gender,
        replacedAt: deps.clock.now(),
        replacedBy: user.email,
      },
    });
    await tx.call.update({
      where: { id: call.id },
      data: {
        summary: analysis.summary,
        varsExtracted: analysis.varsExtracted,
        detectedGender: analysis.detectedGender,
      },
    });
  });
  return callAnalysis(deps, { accountId, callId });
}
