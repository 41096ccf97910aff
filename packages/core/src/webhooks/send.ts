import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isAllowListed } from '../agents/webhook-config';
import type { CoreDeps } from '../deps';
import { bareHost, checkPublicHost } from '../network/public-address';

export const RESPONSE_BODY_LIMIT = 2048;

export interface SendResult {
  statusCode?: number;
  error?: string;
  latencyMs: number;
  /** The response body's first `responseLimit` bytes (2 KB unless asked). */
  body?: string;
  retryAfter?: string;
}

/**
 * POSTs a webhook (or a flow's function request). The public-address rule is checked again now, against what the host resolves to
 * at this moment, and the connection goes to exactly the address that was checked, so a DNS answer
 * that changes between the check and the connect (DNS rebinding) cannot reach a private network.
 * Redirects are not followed (a 3xx is a failed attempt); the whole request has a time limit.
 */
export async function sendWebhook(
  { resolveHost, config }: Pick<CoreDeps, 'resolveHost' | 'config'>,
  {
    url,
    headers,
    body,
    timeoutMs,
    responseLimit = RESPONSE_BODY_LIMIT,
  }: {
    url: string;
    headers: Record<string, string>;
    body: string;
    timeoutMs: number;
    /** The response body kept, in bytes (the rest is not read). */
    responseLimit?: number;
  },
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { error: 'invalid URL', latencyMs: elapsed() };
  }
  let address: string;
  if (isAllowListed(target, config.webhookAllowedHosts ?? [])) {
    const host = bareHost(target.hostname);
    address = isIP(host) ? host : ((await resolveHost(host).catch(() => []))[0] ?? '');
    if (!address) return { error: `${host} does not resolve`, latencyMs: elapsed() };
  } else {
    if (target.protocol !== 'https:') return { error: 'url must use https', latencyMs: elapsed() };
    const check = await checkPublicHost(target.hostname, resolveHost);
    if (!check.ok) return { error: `refused: ${check.reason}`, latencyMs: elapsed() };
    address = check.addresses[0]!;
  }
  const family = isIP(address);
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };

  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, latencyMs: elapsed() });
    };
    const request = (target.protocol === 'https:' ? https : http).request(
      target,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () =>
          finish({
            statusCode: response.statusCode,
            body: Buffer.concat(chunks).subarray(0, responseLimit).toString('utf8'),
            retryAfter: response.headers['retry-after'],
          });
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= responseLimit) {
            done();
            response.destroy();
          }
        });
        response.on('end', done);
        response.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      finish({ error: `timed out after ${timeoutMs} ms` });
      request.destroy();
    }, timeoutMs);
    request.on('error', (error) => finish({ error: error.message }));
    request.end(body);
  });
}
