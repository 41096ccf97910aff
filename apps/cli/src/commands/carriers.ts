import type { Command } from 'commander';
import { withAccount } from '../context';
import { printRecord, printRows } from '../output';
import { settings } from '../io';

const COLUMNS = [
  'carrier_connection_id',
  'provider',
  'account_sid',
  'name',
  'api_key_sid',
  'phone_numbers',
  'verified_at',
];

interface CredentialOptions {
  authToken?: string;
  apiKeySid?: string;
  apiKeySecret?: string;
}

/** Secrets from their options or, kept out of shell history, from the environment (read when run). */
async function credentials(options: CredentialOptions) {
  const env = await settings();
  return {
    auth_token: options.authToken ?? env.carrierAuthToken,
    api_key_sid: options.apiKeySid,
    api_key_secret: options.apiKeySecret ?? (options.apiKeySid ? env.carrierApiKeySecret : undefined),
  };
}

const withCredentialOptions = (command: Command) =>
  command
    .option(
      '--auth-token <token>',
      "the account's auth token (or CARRIER_AUTH_TOKEN): Twilio signs its webhooks with it",
    )
    .option('--api-key-sid <sid>', 'an API key (SK…) for REST requests instead of the auth token')
    .option('--api-key-secret <secret>', "the API key's secret (or CARRIER_API_KEY_SECRET)");

export function registerCarrierCommands(program: Command): void {
  const carriers = program
    .command('carriers')
    .description("Connect an account's own Twilio account (docs/telephony.md)");

  withCredentialOptions(
    carriers
      .command('connect')
      .description('Connect a Twilio account: the credentials are checked with Twilio, then sealed')
      .argument('<account-sid>', 'the Twilio account SID (AC…)')
      .requiredOption('--account <id>', 'account id'),
  )
    .option('--json', 'print JSON')
    .action((accountSid: string, options: CredentialOptions & { account: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) => {
        const input = core.parseInput(core.CreateCarrierConnectionInput, {
          account_sid: accountSid,
          ...(await credentials(options)),
        });
        printRecord(await core.createCarrierConnection(deps, { accountId, ...input }), options);
      }),
    );

  carriers
    .command('list')
    .description("List an account's carrier connections")
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'print JSON')
    .action((options: { account: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) => {
        printRows(await core.listCarrierConnections(deps, { accountId }), COLUMNS, options);
      }),
    );

  withCredentialOptions(
    carriers
      .command('update')
      .description("Replace a connection's credentials (a rotated auth token), checked with Twilio first")
      .argument('<connection-id>')
      .requiredOption('--account <id>', 'account id'),
  )
    .option('--json', 'print JSON')
    .action((connectionId: string, options: CredentialOptions & { account: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) => {
        const input = core.parseInput(core.UpdateCarrierConnectionInput, {
          carrier_connection_id: connectionId,
          fields: await credentials(options),
        });
        printRecord(await core.updateCarrierConnection(deps, { accountId, ...input }), options);
      }),
    );

  carriers
    .command('disconnect')
    .description('Disconnect a Twilio account no number uses any more')
    .argument('<connection-id>')
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'print JSON')
    .action((connectionId: string, options: { account: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) => {
        const input = core.parseInput(core.CarrierConnectionIdInput, { carrier_connection_id: connectionId });
        printRecord(await core.deleteCarrierConnection(deps, { accountId, ...input }), options);
      }),
    );
}
