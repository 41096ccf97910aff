import type { Command } from 'commander';
import { withAccount } from '../context';
import { printRecord, printRows } from '../output';
import { print } from '../io';

const COLUMNS = ['id', 'name', 'prefix', 'created_at', 'last_used_at', 'revoked_at'];

export function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').description("Manage an account's API keys");
  keys
    .command('create')
    .description('Create an API key (shown once)')
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--name <name>', 'a label for the key')
    .option('--json', 'print JSON')
    .action((options: { account: string; name: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) => {
        const input = core.parseInput(core.CreateApiKeyInput, { name: options.name });
        const { apiKey, key } = await core.createApiKey(deps, { accountId, ...input });
        printRecord({ ...apiKey, api_key: key }, options);
        if (!options.json) print('Store the API key now: it is not shown again.');
      }),
    );
  keys
    .command('list')
    .description('List API keys (prefixes only)')
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'print JSON')
    .action((options: { account: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) => {
        const rows = await core.listApiKeys(deps, { accountId });
        printRows(rows as unknown as Record<string, unknown>[], COLUMNS, options);
      }),
    );
  keys
    .command('revoke')
    .description('Revoke an API key; requests with it get 401 from then on')
    .argument('<key-id>', 'API key id')
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'print JSON')
    .action((keyId: string, options: { account: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) => {
        const revoked = await core.revokeApiKey(deps, { accountId, apiKeyId: keyId });
        printRecord(revoked as unknown as Record<string, unknown>, options);
      }),
    );
}
