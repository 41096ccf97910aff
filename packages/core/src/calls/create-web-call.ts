import { randomUUID } from 'node:crypto';
import type { Prisma } from '@voice/db';
import { loadAgent, mergedVariables } from '../agents';
import { webCallTokens } from '../call-tokens';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { createCallWithinLimit } from './concurrent-calls';
import { startCallWorkflows } from './dial-call';
import type { CreateWebCallData, CreateWebCallOutput } from './schemas';

/** How long a web call's access token opens its call (CoreConfig): the browser connects at once or not at all. */
export const DEFAULT_WEB_CALL_CONNECT_MS = 60_000;

export const webCallConnectMs = (config: CoreDeps['config']) =>
  config.webCallConnectMs ?? DEFAULT_WEB_CALL_CONNECT_MS;

/**
 * Where browsers connect for web calls: the media server's `/media/web`, beside its `/media/twilio`
 * (MEDIA_PUBLIC_URL, else PUBLIC_URL's host); null when the media stream URL has a path of its own.
 */
export function webCallUrl(config: CoreDeps['config']): string | null {
  const stream = config.mediaStreamUrl;
  if (!stream) return null;
  const url = new URL(stream);
  if (!url.pathname.endsWith('/media/twilio')) return null;
  url.pathname = url.pathname.replace(/\/media\/twilio$/, '/media/web');
  return url.toString();
}

/**
 * A web call: a call whose line is a browser's WebSocket to the media server rather than a phone
 * network. It is created `initiated`, with an access token the browser connects with (single-use: the
 * media server takes a call's line once; bound to the call; valid for a minute), and runs the same call
 * workflow as a phone call, which finds no carrier to ask and follows the conversation instead
 * (web-call-progress.ts). A web call has no phone numbers: `from_number` and `to_number` are empty, and
 * it is `incoming` (the person calls the agent). It counts against the account's calls in progress and
 * dial rate as a dial does.
 *
 * Crash windows are a dial's: the row is committed first, then the workflow started; a start that fails
 * or never happens leaves `workflow_started_at` unset, and the relay starts it (the workflow then ends
 * the call `error` if the browser never connected in time).
 */
export async function createWebCall(
  deps: CoreDeps,
  { accountId, ...input }: { accountId: string } & CreateWebCallData,
  /** A flow builder's test: the (sealed) draft the call runs; the call is a test call. */
  { flowSnapshot }: { flowSnapshot?: Prisma.InputJsonValue } = {},
): Promise<CreateWebCallOutput> {
  const { db, clock } = deps;
  const agent = await loadAgent(db, accountId, input.agent_id);
  if (!agent.active) throw new AppError('VALIDATION_FAILED', 'The agent is not active');
  const callId = randomUUID();
  const now = clock.now();
  const row = {
    id: callId,
    accountId,
    agentId: agent.id,
    agentVersion: agent.version,
    callType: 'web_call',
    direction: 'incoming',
    fromNumber: '',
    toNumber: '',
    varsProvided: mergedVariables(agent, input.vars_provided ?? {}),
    ...(input.metadata ? { metadata: input.metadata as Prisma.InputJsonObject } : {}),
    ...(flowSnapshot ? { flowSnapshot, isTestCall: true } : {}),
    createdAt: now,
  } satisfies Prisma.CallCreateManyInput;
  await createCallWithinLimit(deps, row);
  await startCallWorkflows(deps, [{ id: callId, accountId, agentId: agent.id, campaignId: null }]);
  return {
    call_id: callId,
    call_type: 'web_call',
    call_status: 'initiated',
    agent_id: agent.id,
    access_token: webCallTokens.create(deps.config.jwtSecret, callId, {
      now,
      validForMs: webCallConnectMs(deps.config),
    }),
  };
}
