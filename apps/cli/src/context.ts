import type * as CoreModule from '@voice/core';
import type { CoreDeps } from '@voice/core';
import { settings } from './io';

/** The domain package, loaded when a command runs: `voice --help` and usage errors never load it. */
export type Core = typeof CoreModule;
export const loadCore = (): Promise<Core> => import('@voice/core');

/** The CLI is an operator tool: it talks to the database directly, with the rights of every account. */
export async function withDeps<T>(fn: (deps: CoreDeps, core: Core) => Promise<T>): Promise<T> {
  const [core, { createDb }, env] = await Promise.all([loadCore(), import('@voice/db'), settings()]);
  if (!env.databaseUrl) throw new core.AppError('VALIDATION_FAILED', 'DATABASE_URL is not set');
  const db = createDb(env.databaseUrl, { maxConnections: 2 });
  const temporal = env.temporalAddress
    ? await (
        await import('./temporal')
      ).connectWorkflows({
        address: env.temporalAddress,
        namespace: env.temporalNamespace,
        taskQueue: env.temporalTaskQueue,
      })
    : null;
  const workflows = temporal?.starter ?? core.deferredWorkflows;
  try {
    return await fn(
      {
        db,
        clock: core.systemClock,
        resolveHost: core.systemResolver,
        workflows,
        config: {
          jwtSecret: env.jwtSecret,
          secretsKey: env.secretsKey,
          previousSecretsKeys: env.previousSecretsKeys,
          webhookAllowedHosts: env.webhookAllowedHosts,
          ...(env.publicUrl ? { publicUrl: env.publicUrl } : {}),
          ...(env.twilioApiBaseUrl ? { twilioApiBaseUrl: env.twilioApiBaseUrl } : {}),
        },
      },
      core,
    );
  } finally {
    await temporal?.close();
    await db.$disconnect();
  }
}

/** Like withDeps, for commands that act inside one account: checks `--account` names an existing one. */
export async function withAccount<T>(
  account: string,
  fn: (deps: CoreDeps, accountId: string, core: Core) => Promise<T>,
): Promise<T> {
  const [core, { z }] = await Promise.all([loadCore(), import('zod')]);
  const AccountOption = z.object({ account: z.uuid('must be an account id (UUID)') });
  const accountId = core.parseInput(AccountOption, { account }).account;
  return withDeps(async (deps) => {
    const found = await deps.db.account.findUnique({ where: { id: accountId } });
    if (!found) throw new core.AppError('ACCOUNT_NOT_FOUND', `Account ${accountId} not found`);
    return fn(deps, accountId, core);
  });
}
