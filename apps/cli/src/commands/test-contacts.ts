import type { Command } from 'commander';
import { accountCommand } from '../account-command';

export function registerTestContactCommands(program: Command): void {
  const contacts = program
    .command('test-contacts')
    .description(
      "Manage an account's test contacts (calls to them are test calls, left out of lists by default)",
    );
  accountCommand<{ name?: string }, [string]>(contacts, 'add', {
    arguments: [['<phone-number>', 'E.164']],
    options: [['--name <name>', 'who this phone belongs to']],
    run: ({ deps, accountId, core, options }, phoneNumber) =>
      core.addTestContact(deps, {
        accountId,
        ...core.parseInput(core.AddTestContactInput, { phone_number: phoneNumber, name: options.name }),
      }),
  });
  accountCommand(contacts, 'list', {
    columns: ['phone_number', 'name', 'created_at'],
    run: ({ deps, accountId, core }) => core.listTestContacts(deps, { accountId }),
  });
  accountCommand<object, [string]>(contacts, 'remove', {
    arguments: [['<phone-number>', 'E.164']],
    run: ({ deps, accountId, core }, phoneNumber) =>
      core.removeTestContact(deps, { accountId, phone_number: phoneNumber }),
  });
}
