import { UsageMeter } from './conversation/usage';
import {
  abandonWarmTransfer,
  callFlowFunction,
  requestWarmTransfer,
  transferConference,
  warmTransferState,
  loadCallAgent,
  refuseLine,
  searchKnowledge,
  placeholdersIn,
  mediaStreamTokens,
  startConversation,
  webCallTokens,
  type CoreDeps,
  type FlowDefinition,
  type FunctionInvocation,
  type RecordingStore,
} from '@voice/core';
import type { Logger } from 'pino';
import type { Admission } from './admission';
import { CallTrace } from './call-trace';
import { storeFinishedConversation } from './finished-conversation';
import type { MediaMetrics } from './metrics';
import { ConversationSession } from './conversation/session';
import type { NoiseSuppression } from './listening/noise-suppression';
import type { SileroVad } from './listening/silero-vad';
import { DEFAULT_TRANSFER_WAIT_MS, type SessionLimits, type SessionProviders } from './conversation/options';
import type { SessionFlow } from './conversation/flow-director';
import type { Line } from './transport/line';
import type { CallRequests } from './call-requests';

export interface CallConversationDeps {
  core: CoreDeps;
  providers: SessionProviders;
  limits: SessionLimits;
  recordings: RecordingStore;
  logger: Logger;
}

/** Who opened a line, as they said: a phone call's media stream (its `<Parameter>`s) or a browser. */
export type LineOpener =
  | { kind: 'phone_call'; parameters: Record<string, string> }
  | { kind: 'web_call'; accessToken: string; accepted: (callId: string) => void };

/** The call a line's token opens: a media stream's for the call it names, a web call's its own. */
export function callOf(deps: CallConversationDeps, opener: LineOpener): string | null {
  const now = deps.core.clock.now();
  if (opener.kind === 'web_call')
    return webCallTokens.verify(deps.core.config.jwtSecret, opener.accessToken, now)?.callId ?? null;
  const token = mediaStreamTokens.verify(deps.core.config.jwtSecret, opener.parameters.token ?? '', now);
  return token && token.callId === opener.parameters.callId ? token.callId : null;
}

/**
 * A call's conversation on a line that has just opened, when the line's token names that call (and
 * has not expired), the call is of the line's kind and has an agent, and no other line has taken it:
 * the agent with the call's variables, the session started, and at its end the conversation stored and
 * the call ended as it decided (at the carrier for a phone call; a web call's line closes). A phone call
 * whose agent leaves voicemail messages is held for their requests, and a web call for an operator's
 * hang-up (call-requests.ts), while its conversation lasts. Else the reason the line is refused, and
 * nothing is written.
 */
export async function startCallConversation(
  deps: CallConversationDeps,
  line: Line,
  opener: LineOpener,
  running: {
    sessions: Set<ConversationSession>;
    metrics: MediaMetrics;
    webCalls: Set<string>;
    vad: SileroVad | null;
    noise: NoiseSuppression | null;
    voicemail: CallRequests<ConversationSession>;
    hangUps: CallRequests<ConversationSession>;
    admission: Admission;
  },
): Promise<{ refused: string } | undefined> {
  const callId = callOf(deps, opener);
  if (!callId)
    return {
      refused:
        opener.kind === 'web_call' ? 'invalid or expired access token' : 'invalid or expired stream token',
    };
  // Past its capacity the process takes no new line: the call ends as refused (never an agent that
  // stutters with every other call on it).
  const release = running.admission.admit();
  if (!release) {
    running.metrics.refused.inc({ line: opener.kind === 'web_call' ? 'web' : 'phone' });
    await refuseAtCapacity(deps, callId, opener.kind);
    return { refused: 'the media server is at capacity' };
  }
  let releasedBySession = false;
  try {
    const loaded = await loadCallAgent(deps.core, callId);
    if (!loaded) return { refused: 'the call has no agent' };
    if (!(await startConversation(deps.core, callId, opener.kind)))
      return { refused: 'the call has a line already, has ended, or is not of this kind' };
    if (opener.kind === 'web_call') {
      opener.accepted(callId);
      // Its line is said to be up (the heartbeat) until its conversation has been stored.
      running.webCalls.add(callId);
    }
    const log = deps.logger.child({ callId });
    // A placeholder the call gave no value for (and that has no default) stays visible, never blank.
    const unfilled = placeholdersIn(`${loaded.agent.prompt}\n${loaded.agent.welcomeMessage}`);
    if (unfilled.length > 0)
      log.warn({ placeholders: unfilled }, 'placeholders without a value are left as written');
    const invocations: FunctionInvocation[] = [];
    const flow = loaded.flow
      ? sessionFlow(
          deps,
          { callId, accountId: loaded.accountId, line, flow: loaded.flow, vars: loaded.vars },
          invocations,
        )
      : undefined;
    const { knowledgeBaseIds } = loaded;
    // A phone call whose agent transfers warm: its attempts, the last one's conference where the caller goes.
    let transferId: string | null = null;
    const warmTransfers =
      opener.kind === 'phone_call' && loaded.agent.transferEnabled && loaded.agent.transferMode === 'warm'
        ? {
            request: async (summary: string) =>
              (transferId = await requestWarmTransfer(deps.core, {
                callId,
                destination: loaded.transferTo!,
                summary,
              })),
            state: (id: string) => warmTransferState(deps.core, id),
            abandon: (id: string) => abandonWarmTransfer(deps.core, { callId, transferId: id }),
            waitMs: deps.limits.transferWaitMs ?? DEFAULT_TRANSFER_WAIT_MS,
          }
        : undefined;
    if (!loaded.flow && loaded.agentType === 'conversationalFlow')
      log.warn('the flow agent has no flow that parses: its prompt leads the call');
    // What the conversation uses of its providers, stored with it for the call's cost.
    const usage = new UsageMeter();
    const traced = CallTrace.start(
      callId,
      opener.kind,
      opener.kind === 'phone_call' ? opener.parameters.traceparent : undefined,
    );
    const session: ConversationSession = new ConversationSession(line, {
      // A web call has no carrier to hand the caller to: its agent does not offer transfers.
      agent: opener.kind === 'web_call' ? { ...loaded.agent, transferEnabled: false } : loaded.agent,
      ...(flow ? { flow } : {}),
      ...(warmTransfers ? { warmTransfers } : {}),
      ...(knowledgeBaseIds.length > 0
        ? {
            knowledge: (query: string) =>
              searchKnowledge(deps.core, { accountId: loaded.accountId, knowledgeBaseIds, query }),
          }
        : {}),
      providers: usage.meter(deps.providers),
      vad: running.vad,
      noise: running.noise,
      limits: deps.limits,
      async ended(result) {
        try {
          await storeFinishedConversation(
            deps,
            {
              callId,
              kind: opener.kind,
              transferTo: loaded.transferTo,
              conference: transferId ? transferConference(transferId) : null,
              line,
              log,
            },
            { ...result, functionInvocations: invocations, usage: usage.total() },
          );
        } finally {
          traced.end(result.turnLatencies.length);
          // Until here the server's stop waits for it.
          running.sessions.delete(session);
          running.webCalls.delete(callId);
          running.voicemail.release(callId);
          running.hangUps.release(callId);
          release();
        }
      },
      interruptions(counts) {
        for (const [outcome, count] of Object.entries(counts))
          if (count > 0) running.metrics.interruptions.inc({ outcome }, count);
      },
      paused: () => running.metrics.audiblePauses.inc(),
      drafted: (outcome) => running.metrics.preemptiveGenerations.inc({ outcome }),
      replied(timing) {
        const { latencyMs, overheadMs, voiceToVoiceMs } = timing;
        traced.turn(timing);
        const labels = { line: opener.kind === 'web_call' ? 'web' : 'phone' };
        running.metrics.replyLatency.observe(labels, latencyMs);
        running.metrics.replyOverhead.observe(labels, overheadMs);
        if (voiceToVoiceMs !== null) running.metrics.voiceToVoice.observe(labels, voiceToVoiceMs);
      },
    });
    // From here the session's end gives the line's place back.
    releasedBySession = true;
    running.sessions.add(session);
    log.info({ kind: opener.kind }, 'conversation started');
    const started = session.start();
    // An answering machine's beep may come (or have come) for a phone call whose agent leaves messages.
    if (opener.kind === 'phone_call' && loaded.agent.voicemail) void running.voicemail.hold(callId, session);
    // An operator may hang up (or have hung up) a web call: it has no carrier to end it at.
    if (opener.kind === 'web_call') void running.hangUps.hold(callId, session);
    await started;
    return undefined;
  } finally {
    if (!releasedBySession) release();
  }
}

/** A line refused at capacity: its call ends as refused (refuseLine), unless a line took it already. */
async function refuseAtCapacity(
  deps: CallConversationDeps,
  callId: string,
  kind: 'phone_call' | 'web_call',
): Promise<void> {
  await refuseLine(deps.core, callId, kind).catch((error: unknown) =>
    deps.logger.error({ err: error, callId }, 'the call refused at capacity could not be ended'),
  );
}

/**
 * A flow as this call runs it: its function requests made (signed, under the address rules) and kept
 * for the dashboard, timed from the line's opening.
 */
function sessionFlow(
  deps: CallConversationDeps,
  {
    callId,
    accountId,
    line,
    flow,
    vars,
  }: { callId: string; accountId: string; line: Line; flow: FlowDefinition; vars: Record<string, string> },
  invocations: FunctionInvocation[],
): SessionFlow {
  return {
    definition: flow,
    vars,
    async callFunction(node, args) {
      const atMs = Math.round(performance.now() - line.openedAt);
      const result = await callFlowFunction(deps.core, { callId, node, args, atMs });
      invocations.push(result.invocation);
      return result;
    },
    retrieve: (knowledgeBaseIds, query) => searchKnowledge(deps.core, { accountId, knowledgeBaseIds, query }),
  };
}
