import type { Prisma } from '@voice/db';
import type { z } from 'zod';
import type { FullCall, LightweightCall, OlderFullCall, OlderLightweightCall } from './schemas';
import { TERMINAL_STATUSES } from './schemas';
import { olderCallCost } from './cost';

export const callInclude = {
  agent: { select: { id: true, name: true } },
  account: true,
} satisfies Prisma.CallInclude;
export type CallRow = Prisma.CallGetPayload<{ include: typeof callInclude }>;
/** What a call's list item is made of (call-list reads only these columns). */
export type ListedCallRow = Pick<
  CallRow,
  | 'id'
  | 'callType'
  | 'status'
  | 'disconnectionReason'
  | 'agentVersion'
  | 'fromNumber'
  | 'toNumber'
  | 'direction'
  | 'isTestCall'
  | 'summary'
  | 'createdAt'
  | 'connectedAt'
  | 'endedAt'
  | 'cost'
> & { agent: { id: string; name: string } | null };

/**
 * Call timing, in Unix ms: `start_timestamp` is when the call was placed (dial accepted),
 * `end_timestamp` when it reached a terminal status, `duration_ms` the connected (talk) time: from
 * answer to end, 0 for a call that never connected. So start + duration <= end.
 */
export function callTiming(row: Pick<CallRow, 'createdAt' | 'connectedAt' | 'endedAt'>) {
  const start = row.createdAt.getTime();
  const end = row.endedAt?.getTime() ?? null;
  const duration = row.connectedAt && row.endedAt ? row.endedAt.getTime() - row.connectedAt.getTime() : 0;
  return { start, end, duration };
}

export const isTerminal = (status: string) => (TERMINAL_STATUSES as readonly string[]).includes(status);

export function toLightweightCall(row: ListedCallRow, { includeSummary = false } = {}): LightweightCall {
  const { start, duration } = callTiming(row);
  return {
    call_id: row.id,
    call_type: row.callType as 'phone_call' | 'web_call',
    call_status: row.status,
    disconnection_reason: row.disconnectionReason as LightweightCall['disconnection_reason'],
    // No agent: an incoming call refused because its number had none (docs/telephony.md).
    agent: row.agent ? { name: row.agent.name, version: row.agentVersion ?? 1 } : null,
    from_number: row.fromNumber,
    to_number: row.toNumber,
    direction: row.direction,
    start_timestamp: start,
    duration_ms: duration,
    is_test_call: row.isTestCall,
    ...(includeSummary ? { summary: row.summary } : {}),
  };
}

export function toFullCall(row: CallRow, recordingUrl: string | null): FullCall {
  const { summary: _omitted, ...light } = toLightweightCall(row);
  return {
    ...light,
    transcript: row.transcript as FullCall['transcript'],
    detected_gender: row.detectedGender as FullCall['detected_gender'],
    recording_url: recordingUrl,
    summary: row.summary,
    vars_provided: row.varsProvided as Record<string, string>,
    vars_extracted: row.varsExtracted as Record<string, string>,
    vars_collected: row.varsCollected as FullCall['vars_collected'],
    answered_by: row.answeredBy as FullCall['answered_by'],
    voicemail_left: row.conversationEndReason === 'voicemail_left',
  };
}

function olderExtras(row: {
  agent: { id: string; name: string } | null;
  agentVersion: number | null;
  account: { id: string; name: string };
  cost: unknown;
}) {
  return {
    agent: row.agent ? { id: row.agent.id, name: row.agent.name, version: row.agentVersion ?? 1 } : null,
    account: { id: row.account.id, name: row.account.name },
    // Stored when the call ended (cost.ts); null for a call that has not ended.
    call_cost: olderCallCost(row.cost),
  };
}

export const toOlderLightweightCall = (
  row: ListedCallRow & { account: { id: string; name: string } },
): z.infer<typeof OlderLightweightCall> => ({
  ...toLightweightCall(row),
  ...olderExtras(row),
});

export const toOlderFullCall = (
  row: CallRow,
  recordingUrl: string | null,
): z.infer<typeof OlderFullCall> => ({
  ...toFullCall(row, recordingUrl),
  ...olderExtras(row),
  metadata: (row.metadata as Record<string, unknown> | null) ?? null,
  end_timestamp: callTiming(row).end,
});
