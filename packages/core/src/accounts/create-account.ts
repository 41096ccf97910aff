import { z } from 'zod';
import type { Account } from '@voice/db';
import type { CoreDeps } from '../deps';
import { createApiKey, type ApiKeyView } from '../auth/api-keys';

export const CreateAccountInput = z.object({
  name: z.string().trim().min(1, 'name must not be empty').max(200, 'name must be at most 200 characters'),
});
export type CreateAccountInput = z.infer<typeof CreateAccountInput>;

/** Creates an account and its first API key; the key is returned once, here. */
export async function createAccount(
  deps: CoreDeps,
  { name }: CreateAccountInput,
): Promise<{ account: Account; apiKey: ApiKeyView; key: string }> {
  const account = await deps.db.account.create({ data: { name, createdAt: deps.clock.now() } });
  const { apiKey, key } = await createApiKey(deps, { accountId: account.id, name: 'default' });
  return { account, apiKey, key };
}
