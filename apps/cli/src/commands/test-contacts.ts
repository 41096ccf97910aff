import type { Command } from 'commander';
import { withAccount } from '../context';
import { printRecord, printRows } from '../output';

export function registerTestContactCommands(program: Command): void {
  const contacts = program
    .command('test-contacts')
    .description(
      "Manage an account's test contacts (calls to them are test calls, left out of lists by default)",
    );
  contacts
    .command('add')
    .argument('<phone-number>', 'E.164')
    .requiredOption('--account <id>', 'account id')
    .option('--name <name>', 'who this phone belongs to')
    .option('--json', 'print JSON')
    .action((phoneNumber: string, options: { account: string; name?: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) => {
        const input = core.parseInput(core.AddTestContactInput, {
          phone_number: phoneNumber,
          name: options.name,
        });
        printRecord(await core.addTestContact(deps, { accountId, ...input }), options);
      }),
    );
  contacts
    .command('list')
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'print JSON')
    .action((options: { account: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) =>
        printRows(
          await core.listTestContacts(deps, { accountId }),
          ['phone_number', 'name', 'created_at'],
          options,
        ),
      ),
    );
  contacts
    .command('remove')
    .argument('<phone-number>', 'E.164')
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'print JSON')
    .action((phoneNumber: string, options: { account: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) =>
        printRecord(await core.removeTestContact(deps, { accountId, phone_number: phoneNumber }), options),
      ),
    );
}
