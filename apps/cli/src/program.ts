import { Command } from 'commander';
import { registerAccountCommands } from './commands/accounts';
import { registerAgentCommands } from './commands/agents';
import { registerCallCommands } from './commands/calls';
import { registerCampaignCommands } from './commands/campaigns';
import { registerCarrierCommands } from './commands/carriers';
import { registerDbCommands } from './commands/db';
import { registerDoNotCallCommands } from './commands/dnc';
import { registerDoctorCommand } from './commands/doctor';
import { registerEmailCommands } from './commands/emails';
import { registerKeyCommands } from './commands/keys';
import { registerNumberCommands } from './commands/numbers';
import { registerSecretCommands } from './commands/secrets';
import { registerSeedCommands } from './commands/seed';
import { registerTestAgentCommand } from './commands/test-agent';
import { registerTestContactCommands } from './commands/test-contacts';
import { registerUserCommands } from './commands/users';
import { registerWebhookCommands } from './commands/webhooks';
import type { CliIo } from './io';

/**
 * The `voice` program, writing to `io`'s outputs. Commander's exits become errors (runCli turns them into
 * exit codes); both settings are made before the commands are added, which inherit them.
 */
export function createProgram(io: Pick<CliIo, 'stdout' | 'stderr'>): Command {
  const program = new Command('voice')
    .description('Operate the voice agent calling service')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void io.stdout.write(text),
      writeErr: (text) => void io.stderr.write(text),
    });
  registerAccountCommands(program);
  registerAgentCommands(program);
  registerCallCommands(program);
  registerCampaignCommands(program);
  registerCarrierCommands(program);
  registerDbCommands(program);
  registerDoNotCallCommands(program);
  registerDoctorCommand(program);
  registerEmailCommands(program);
  registerKeyCommands(program);
  registerNumberCommands(program);
  registerSecretCommands(program);
  registerSeedCommands(program);
  registerTestAgentCommand(program);
  registerTestContactCommands(program);
  registerUserCommands(program);
  registerWebhookCommands(program);
  return program;
}
