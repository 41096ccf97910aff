import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { checkPublicHost } from '../network/public-address';
import { sealWebhookSecrets, type SecretsConfig } from '../secrets/secret-box';
import type { WebhookInput } from './schemas';

/**
 * Why a webhook URL may not be stored, or null. The URL must be https without credentials, and its
 * host (an IP literal, or every address its name resolves to) must be public; see network/public-address.
 * A name that does not resolve now is stored: a DNS outage must not block saving an agent, and every
 * delivery checks the address it connects to again. Hosts on the operator allow-list skip the address
 * and https rules (development and tests only).
 */
export async function webhookUrlProblem(
  { resolveHost, config }: Pick<CoreDeps, 'resolveHost' | 'config'>,
  raw: string,
): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url is not a valid URL';
  }
  if (url.username || url.password) return 'url must not contain credentials';
  if (isAllowListed(url, config.webhookAllowedHosts ?? [])) {
    return url.protocol === 'https:' || url.protocol === 'http:' ? null : 'url must use https';
  }
  if (url.protocol !== 'https:') return 'url must use https';
  const check = await checkPublicHost(url.hostname, resolveHost);
  return check.ok || check.unresolved ? null : `url must point to a public address: ${check.reason}`;
}

export function isAllowListed(url: URL, allowList: readonly string[]): boolean {
  const host = url.hostname.toLowerCase();
  return allowList.includes(host) || (url.port !== '' && allowList.includes(`${host}:${url.port}`));
}

/** Checks every webhook's URL; the error names the webhook by position and name, and the reason. */
export async function assertWebhooksAllowed(
  deps: Pick<CoreDeps, 'resolveHost' | 'config'>,
  webhooks: readonly Pick<WebhookInput, 'name' | 'url'>[],
): Promise<void> {
  const problems = await Promise.all(webhooks.map((webhook) => webhookUrlProblem(deps, webhook.url)));
  const index = problems.findIndex((problem) => problem !== null);
  if (index >= 0) {
    const webhook = webhooks[index]!;
    throw new AppError(
      'VALIDATION_FAILED',
      `webhooks[${index}] (${JSON.stringify(webhook.name)}): ${problems[index]}`,
    );
  }
}

/** Rows to store for a webhook list, in order, with the secret and header values sealed. */
export function webhookRows(config: SecretsConfig, webhooks: readonly WebhookInput[]) {
  return webhooks.map((webhook, position) => ({
    position,
    name: webhook.name,
    url: webhook.url,
    ...sealWebhookSecrets(config, { secret: webhook.secret ?? null, headers: webhook.headers ?? {} }),
  }));
}
