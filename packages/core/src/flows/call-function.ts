import { randomUUID } from 'node:crypto';
import type { CoreDeps } from '../deps';
import { open } from '../secrets/secret-box';
import { sendWebhook } from '../webhooks/send';
import { signatureHeaders } from '../webhooks/signing';
import type { FunctionOutcome } from './flow-ports';
import type { FlowFunction } from './schema';

/** A function's response read at most this far: more is a failure. */
const RESPONSE_LIMIT = 64 * 1024;
/** What an invocation keeps of the response, for the dashboard. */
const KEPT_RESPONSE = 4 * 1024;

/**
 * One function request of a call, as the call keeps it for the dashboard (never for API-key callers):
 * what was sent, what came back, how long it took. Header values and the secret are never kept.
 */
export interface FunctionInvocation {
  node: string;
  name: string;
  url: string;
  /** ms from the call's start. */
  at_ms: number;
  request: Record<string, unknown>;
  ok: boolean;
  status: number | null;
  /** The response body (its first 4 KB), or null. */
  response: string | null;
  error: string | null;
  latency_ms: number;
}

/**
 * Calls a function node's endpoint: a JSON POST of `{name, call_id, args}` (args: the node's chosen
 * variables) with its custom headers and, when it has a secret, the Standard Webhooks signature our
 * webhooks carry (`webhook-id` is the invocation's id). The webhooks' address rules hold (HTTPS, public,
 * pinned against DNS rebinding, no redirects) within the node's time limit. A 2xx answer whose body is
 * JSON (or empty) succeeds; anything else fails, with why.
 */
export async function callFlowFunction(
  deps: Pick<CoreDeps, 'resolveHost' | 'config' | 'clock'>,
  {
    callId,
    node,
    args,
    atMs,
  }: {
    callId: string;
    node: { id: string; name: string; function: FlowFunction };
    args: Record<string, string>;
    /** When in the call it is made (ms from the call's start), for the invocation kept. */
    atMs: number;
  },
): Promise<
  FunctionOutcome & {
    status: number | null;
    body: string | null;
    request: Record<string, unknown>;
    /** The request and its result as the call keeps them. */
    invocation: FunctionInvocation;
  }
> {
  const { name, function: fn } = node;
  const request = { name, call_id: callId, args };
  const body = JSON.stringify(request);
  const custom = Object.fromEntries(
    Object.entries(fn.headers).flatMap(([header, value]) =>
      value === null ? [] : [[header, open(deps.config, value)]],
    ),
  );
  const signing = signatureHeaders({
    secret: fn.secret ? open(deps.config, fn.secret) : null,
    id: `fn_${randomUUID()}`,
    timestamp: Math.floor(deps.clock.now().getTime() / 1000),
    body,
  });
  const sent = await sendWebhook(deps, {
    url: fn.url,
    headers: {
      ...custom,
      ...signing,
      'content-type': 'application/json',
      'user-agent': 'voice-agent-flows/1',
    },
    body,
    timeoutMs: fn.timeout_ms,
    responseLimit: RESPONSE_LIMIT + 1,
  });
  const kept = sent.body === undefined ? null : sent.body.slice(0, KEPT_RESPONSE);
  const status = sent.statusCode ?? null;
  const result = (outcome: FunctionOutcome) => ({
    ...outcome,
    status,
    body: kept,
    request,
    invocation: {
      node: node.id,
      name,
      url: fn.url,
      at_ms: atMs,
      request,
      ok: outcome.ok,
      status,
      response: kept,
      error: outcome.error ?? null,
      latency_ms: sent.latencyMs,
    },
  });
  if (sent.error) return result({ ok: false, error: sent.error });
  if (status === null || status < 200 || status > 299)
    return result({ ok: false, error: `HTTP ${status ?? 0}` });
  if ((sent.body ?? '').length > RESPONSE_LIMIT)
    return result({ ok: false, error: 'the response is over 64 KB' });
  try {
    return result({ ok: true, data: sent.body?.trim() ? (JSON.parse(sent.body) as unknown) : null });
  } catch {
    return result({ ok: false, error: 'the response is not JSON' });
  }
}
