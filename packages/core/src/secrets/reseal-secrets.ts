import type { CoreDeps } from '../deps';
import {
  needsReseal,
  open,
  openWebhookSecrets,
  seal,
  sealWebhookSecrets,
  type WebhookSecrets,
} from './secret-box';

const BATCH = 500;

function stale(config: CoreDeps['config'], parts: WebhookSecrets): boolean {
  return [parts.secret, ...Object.values(parts.headers)].some(
    (value) => value !== null && needsReseal(config, value),
  );
}

function resealed(config: CoreDeps['config'], parts: WebhookSecrets): WebhookSecrets {
  return sealWebhookSecrets(config, openWebhookSecrets(config, parts));
}

/**
 * Seals with the current SECRETS_KEY every stored webhook secret and header value that is plaintext
 * (written before encryption at rest) or sealed with a previous key, in webhooks and in delivery
 * snapshots, and every carrier connection's credentials sealed with a previous key. Safe to run at
 * any time and again; afterwards the previous keys can be dropped.
 */
export async function resealSecrets({ db, config }: Pick<CoreDeps, 'db' | 'config'>) {
  const counts = { webhooks: 0, deliveries: 0, carrier_connections: 0 };
  // Few rows per account: one pass.
  const connections = await db.carrierConnection.findMany({ select: { id: true, credentials: true } });
  for (const connection of connections) {
    if (!needsReseal(config, connection.credentials)) continue;
    await db.carrierConnection.update({
      where: { id: connection.id },
      data: { credentials: seal(config, open(config, connection.credentials)) },
    });
    counts.carrier_connections += 1;
  }
  for (const table of ['webhooks', 'deliveries'] as const) {
    let cursor: string | undefined;
    for (;;) {
      const args = {
        select: { id: true, secret: true, headers: true },
        orderBy: { id: 'asc' as const },
        take: BATCH,
        ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
      };
      const rows =
        table === 'webhooks' ? await db.agentWebhook.findMany(args) : await db.webhookDelivery.findMany(args);
      for (const row of rows) {
        const parts = { secret: row.secret, headers: row.headers as Record<string, string> };
        if (!stale(config, parts)) continue;
        const data = resealed(config, parts);
        if (table === 'webhooks') await db.agentWebhook.update({ where: { id: row.id }, data });
        else await db.webhookDelivery.update({ where: { id: row.id }, data });
        counts[table] += 1;
      }
      if (rows.length < BATCH) break;
      cursor = rows.at(-1)!.id;
    }
  }
  return counts;
}
