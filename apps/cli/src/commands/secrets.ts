import type { Command } from 'commander';
import { withDeps } from '../context';
import { printRecord } from '../output';

export function registerSecretCommands(program: Command): void {
  const secrets = program.command('secrets').description('Manage the encryption of stored secrets');
  secrets
    .command('reseal')
    .description(
      'Seal every stored webhook secret, header value, flow function secret and carrier credential with SECRETS_KEY: plaintext ' +
        'ones (stored before encryption at rest) and ones sealed with a key in SECRETS_KEY_PREVIOUS',
    )
    .option('--json', 'print JSON')
    .action((options: { json?: boolean }) =>
      withDeps(async (deps, core) => {
        const counts = await core.resealSecrets(deps);
        const flows = await core.resealFlowSecrets(deps);
        printRecord(
          {
            webhooks_resealed: counts.webhooks,
            deliveries_resealed: counts.deliveries,
            carrier_connections_resealed: counts.carrier_connections,
            flows_resealed: flows,
          },
          options,
        );
      }),
    );
}
