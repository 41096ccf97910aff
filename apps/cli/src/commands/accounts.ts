import type { Command } from 'commander';
import { CreateAccountInput, createAccount, parseInput } from '@voice/core';
import { withDeps } from '../context';
import { printRecord } from '../output';

export function registerAccountCommands(program: Command): void {
  const accounts = program.command('accounts').description('Manage accounts');
  accounts
    .command('create')
    .description('Create an account and its first API key (shown once)')
    .requiredOption('--name <name>', 'account name')
    .option('--json', 'print JSON')
    .action((options: { name: string; json?: boolean }) =>
      withDeps(async (deps) => {
        const input = parseInput(CreateAccountInput, { name: options.name });
        const { account, apiKey, key } = await createAccount(deps, input);
        printRecord(
          { account_id: account.id, account_name: account.name, api_key_id: apiKey.id, api_key: key },
          options,
        );
        if (!options.json) console.log('Store the API key now: it is not shown again.');
      }),
    );
}
