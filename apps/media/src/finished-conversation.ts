import { recordingKeyFor, storeConversation, type ConversationResult, type ServiceEnd } from '@voice/core';
import type { Logger } from 'pino';
import type { CallConversationDeps } from './call-conversation';
import { recordingOf } from './recording';
import type { Line } from './transport/line';

/** Runs `task` up to five times, waiting 200 ms, 400 ms, ... between tries. */
async function withRetries<T>(task: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await task();
    } catch (error) {
      if (attempt === 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * 2 ** (attempt - 1)));
    }
  }
}

/**
 * The end of a call's conversation: its two-channel recording put in the store, the conversation stored
 * with it (a database that blinks gets a few tries), the call's workflow told (it may be waiting for it),
 * then the call ended as the conversation decided: at the carrier for a phone call (hung up,
 * transferred; nothing when the caller hung up), a web call's line closed. The call is ended even when
 * something before failed.
 */
export async function storeFinishedConversation(
  deps: Pick<CallConversationDeps, 'core' | 'recordings'>,
  call: {
    callId: string;
    kind: 'phone_call' | 'web_call';
    transferTo: string | null;
    /** A warm transfer's conference, where the colleague briefed waits for the caller. */
    conference?: string | null;
    line: Line;
    log: Logger;
  },
  result: ConversationResult,
): Promise<void> {
  const { callId, log } = call;
  let recordingKey: string | null = recordingKeyFor(callId);
  try {
    await deps.recordings.put(recordingKey, await recordingOf(call.line.tracks));
  } catch (error) {
    recordingKey = null;
    result.failures.push(`recording: ${(error as Error).message}`);
  }
  const record = { ...result, recordingKey, endedAt: deps.core.clock.now() };
  await withRetries(() => storeConversation(deps.core, callId, record)).catch((error: unknown) =>
    log.error({ err: error }, 'the conversation could not be stored'),
  );
  await deps.core.workflows
    .conversationEnded(callId)
    .catch((error: unknown) => log.warn({ err: error }, 'the call workflow was not told'));
  log.info(
    { end: result.end, turns: result.transcript.length, failures: result.failures },
    'conversation ended',
  );
  // A web call ends with its line, no carrier to ask; a page whose caller hung up waits for it, to show
  // the agent's last words as they were heard.
  if (call.kind === 'web_call') return call.line.hangUp(result.end);
  if (result.end === 'user_hangup') return;
  const request: ServiceEnd =
    result.end === 'transferred'
      ? {
          action: 'transfer',
          destination: call.transferTo!,
          ...(call.conference ? { conference: call.conference } : {}),
        }
      : // A message left on an answering machine: the agent hangs up.
        { action: 'hang_up', reason: result.end === 'voicemail_left' ? 'agent_hangup' : result.end };
  await deps.core.workflows
    .endCall(callId, request)
    .catch((error: unknown) => log.error({ err: error }, 'the call could not be ended at the carrier'));
}
