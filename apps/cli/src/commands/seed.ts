import type { Command } from 'commander';
import { withDeps } from '../context';
import { printRecord } from '../output';

export function registerSeedCommands(program: Command): void {
  const seed = program.command('seed').description('Seed data');
  seed
    .command('demo')
    .description(
      'Create (idempotently) the demo account, agent, two numbers, an API key and a dashboard login',
    )
    .option('--key <api-key>', 'a demo key from an earlier run, reused when still valid')
    .option(
      '--password <password>',
      'the demo login password from an earlier run, kept when it still signs in',
    )
    .option('--json', 'print JSON')
    .action((options: { key?: string; password?: string; json?: boolean }) =>
      withDeps(async (deps, core) => {
        const result = await core.seedDemo(deps, { knownKey: options.key, knownPassword: options.password });
        printRecord(
          {
            account_id: result.accountId,
            agent_id: result.agentId,
            api_key: result.apiKey,
            api_key_created: result.apiKeyCreated,
            login_email: result.login.email,
            login_password: result.login.password,
          },
          options,
        );
      }),
    );
}
