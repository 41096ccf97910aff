import {
  loadCallAgent,
  placeholdersIn,
  startConversation,
  verifyMediaStreamToken,
  type CoreDeps,
  type RecordingStore,
} from '@voice/core';
import type { Logger } from 'pino';
import { storeFinishedConversation } from './finished-conversation';
import type { MediaMetrics } from './metrics';
import { ConversationSession } from './conversation/session';
import type { SessionLimits, SessionProviders } from './conversation/options';
import type { Line } from './transport/line';

export interface CallConversationDeps {
  core: CoreDeps;
  providers: SessionProviders;
  limits: SessionLimits;
  recordings: RecordingStore;
  logger: Logger;
}

/**
 * A call's conversation on a line that has just opened, when the stream's token names that call (and
 * has not expired), the call has an agent, and no other stream has taken it: the agent with the call's
 * variables, the session started, and at its end the conversation stored and the call ended at the
 * carrier as it decided. Else the reason the stream is refused.
 */
export async function startCallConversation(
  deps: CallConversationDeps,
  line: Line,
  parameters: Record<string, string>,
  running: { sessions: Set<ConversationSession>; metrics: MediaMetrics },
): Promise<{ refused: string } | undefined> {
  const token = verifyMediaStreamToken(
    deps.core.config.jwtSecret,
    parameters.token ?? '',
    deps.core.clock.now(),
  );
  if (!token || token.callId !== parameters.callId) return { refused: 'invalid or expired stream token' };
  const { callId } = token;
  const loaded = await loadCallAgent(deps.core, callId);
  if (!loaded) return { refused: 'the call has no agent' };
  if (!(await startConversation(deps.core, callId)))
    return { refused: 'the call has a stream already or has ended' };
  const log = deps.logger.child({ callId });
  // A placeholder the call gave no value for (and that has no default) stays visible, never blank.
  const unfilled = placeholdersIn(`${loaded.agent.prompt}\n${loaded.agent.welcomeMessage}`);
  if (unfilled.length > 0)
    log.warn({ placeholders: unfilled }, 'placeholders without a value are left as written');
  const session: ConversationSession = new ConversationSession(line, {
    agent: loaded.agent,
    providers: deps.providers,
    limits: deps.limits,
    async ended(result) {
      try {
        await storeFinishedConversation(deps, { callId, transferTo: loaded.transferTo, line, log }, result);
      } finally {
        // Until here the server's stop waits for it.
        running.sessions.delete(session);
      }
    },
    replied({ latencyMs, overheadMs }) {
      running.metrics.replyLatency.observe(latencyMs);
      running.metrics.replyOverhead.observe(overheadMs);
    },
  });
  running.sessions.add(session);
  log.info('conversation started');
  await session.start();
  return undefined;
}
