import type { Command } from 'commander';
import { withAccount } from '../context';
import { printRecord, printRows } from '../output';

const COLUMNS = ['phone_number', 'phone_number_pretty', 'display_name', 'status', 'agent_name', 'agent_id'];

export function registerNumberCommands(program: Command): void {
  const numbers = program.command('numbers').description("Manage an account's phone numbers");
  numbers
    .command('add')
    .description('Register a carrier number (E.164) with an account')
    .argument('<phone-number>', 'E.164, e.g. +14155550123')
    .requiredOption('--account <id>', 'account id')
    .option('--display-name <name>', 'a label for the number')
    .option(
      '--carrier-connection <id>',
      "the account's Twilio connection that has the number (checked with Twilio; its calls are pointed at PUBLIC_URL)",
    )
    .option('--json', 'print JSON')
    .action(
      (
        phoneNumber: string,
        options: { account: string; displayName?: string; carrierConnection?: string; json?: boolean },
      ) =>
        withAccount(options.account, async (deps, accountId, core) => {
          const input = core.parseInput(core.AddPhoneNumberInput, {
            phone_number: phoneNumber,
            display_name: options.displayName,
            carrier_connection_id: options.carrierConnection,
          });
          printRecord(await core.addPhoneNumber(deps, { accountId, ...input }), options);
        }),
    );
  numbers
    .command('list')
    .description("List an account's numbers")
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'print JSON')
    .action((options: { account: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) => {
        printRows(await core.listPhoneNumbers(deps, { accountId }), COLUMNS, options);
      }),
    );
  numbers
    .command('assign')
    .description('Assign an agent to a number')
    .argument('<phone-number>', 'E.164')
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--agent <id>', 'agent id')
    .option('--json', 'print JSON')
    .action((phoneNumber: string, options: { account: string; agent: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) => {
        const input = core.parseInput(core.AssignPhoneNumberInput, {
          phone_number: phoneNumber,
          agent_id: options.agent,
        });
        printRecord(await core.assignPhoneNumber(deps, { accountId, ...input }), options);
      }),
    );
  numbers
    .command('unassign')
    .description('Remove the agent from a number')
    .argument('<phone-number>', 'E.164')
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'print JSON')
    .action((phoneNumber: string, options: { account: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) => {
        printRecord(
          await core.assignPhoneNumber(deps, { accountId, phone_number: phoneNumber, agent_id: null }),
          options,
        );
      }),
    );
}
