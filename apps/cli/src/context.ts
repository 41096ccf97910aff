import { z } from 'zod';
import {
  AppError,
  deferredWorkflows,
  parseInput,
  systemClock,
  systemResolver,
  type CoreDeps,
} from '@voice/core';
import { createDb } from '@voice/db';
import { env } from './env';

/** The CLI is an operator tool: it talks to the database directly, with the rights of every account. */
export async function withDeps<T>(fn: (deps: CoreDeps) => Promise<T>): Promise<T> {
  if (!env.databaseUrl) throw new AppError('VALIDATION_FAILED', 'DATABASE_URL is not set');
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
  const workflows = temporal?.starter ?? deferredWorkflows;
  try {
    return await fn({
      db,
      clock: systemClock,
      resolveHost: systemResolver,
      workflows,
      config: {
        jwtSecret: env.jwtSecret,
        secretsKey: env.secretsKey,
        previousSecretsKeys: env.previousSecretsKeys,
        webhookAllowedHosts: env.webhookAllowedHosts,
      },
    });
  } finally {
    await temporal?.close();
    await db.$disconnect();
  }
}

const AccountOption = z.object({ account: z.uuid('must be an account id (UUID)') });

/** Like withDeps, for commands that act inside one account: checks `--account` names an existing one. */
export function withAccount<T>(
  account: string,
  fn: (deps: CoreDeps, accountId: string) => Promise<T>,
): Promise<T> {
  const accountId = parseInput(AccountOption, { account }).account;
  return withDeps(async (deps) => {
    const found = await deps.db.account.findUnique({ where: { id: accountId } });
    if (!found) throw new AppError('ACCOUNT_NOT_FOUND', `Account ${accountId} not found`);
    return fn(deps, accountId);
  });
}
