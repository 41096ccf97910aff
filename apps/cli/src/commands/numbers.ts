import type { Command } from 'commander';
import { accountCommand } from '../account-command';

const COLUMNS = ['phone_number', 'phone_number_pretty', 'display_name', 'status', 'agent_name', 'agent_id'];

export function registerNumberCommands(program: Command): void {
  const numbers = program.command('numbers').description("Manage an account's phone numbers");
  accountCommand<{ displayName?: string; carrierConnection?: string }, [string]>(numbers, 'add', {
    description: 'Register a carrier number (E.164) with an account',
    arguments: [['<phone-number>', 'E.164, e.g. +14155550123']],
    options: [
      ['--display-name <name>', 'a label for the number'],
      [
        '--carrier-connection <id>',
        "the account's Twilio connection that has the number (checked with Twilio; its calls are pointed at PUBLIC_URL)",
      ],
    ],
    run: ({ deps, accountId, core, options }, phoneNumber) =>
      core.addPhoneNumber(deps, {
        accountId,
        ...core.parseInput(core.AddPhoneNumberInput, {
          phone_number: phoneNumber,
          display_name: options.displayName,
          carrier_connection_id: options.carrierConnection,
        }),
      }),
  });
  accountCommand(numbers, 'list', {
    description: "List an account's numbers",
    columns: COLUMNS,
    run: ({ deps, accountId, core }) => core.listPhoneNumbers(deps, { accountId }),
  });
  accountCommand<{ agent: string }, [string]>(numbers, 'assign', {
    description: 'Assign an agent to a number',
    arguments: [['<phone-number>', 'E.164']],
    requiredOptions: [['--agent <id>', 'agent id']],
    run: ({ deps, accountId, core, options }, phoneNumber) =>
      core.assignPhoneNumber(deps, {
        accountId,
        ...core.parseInput(core.AssignPhoneNumberInput, {
          phone_number: phoneNumber,
          agent_id: options.agent,
        }),
      }),
  });
  accountCommand<object, [string]>(numbers, 'unassign', {
    description: 'Remove the agent from a number',
    arguments: [['<phone-number>', 'E.164']],
    run: ({ deps, accountId, core }, phoneNumber) =>
      core.assignPhoneNumber(deps, { accountId, phone_number: phoneNumber, agent_id: null }),
  });
  accountCommand<object, [string]>(numbers, 'release', {
    description:
      'Take a number out of the account (refused while a call through it is in progress or a campaign that has not ended dials from it)',
    arguments: [['<phone-number>', 'E.164']],
    run: ({ deps, accountId, core }, phoneNumber) =>
      core.releasePhoneNumber(deps, { accountId, phone_number: phoneNumber }),
  });
}
