import { Command } from 'commander';
import { registerAccountCommands } from './commands/accounts';
import { registerAgentCommands } from './commands/agents';
import { registerCallCommands } from './commands/calls';
import { registerKeyCommands } from './commands/keys';
import { registerNumberCommands } from './commands/numbers';
import { registerSeedCommands } from './commands/seed';
import { registerTestContactCommands } from './commands/test-contacts';

export function createProgram(): Command {
  const program = new Command('voice')
    .description('Operate the voice agent calling service')
    .showHelpAfterError();
  registerAccountCommands(program);
  registerAgentCommands(program);
  registerCallCommands(program);
  registerKeyCommands(program);
  registerNumberCommands(program);
  registerSeedCommands(program);
  registerTestContactCommands(program);
  return program;
}
