import type { Command } from 'commander';
import { withDeps } from '../context';
import { printRecord } from '../output';
import { print } from '../io';

export function registerAccountCommands(program: Command): void {
  const accounts = program.command('accounts').description('Manage accounts');
  accounts
    .command('create')
    .description('Create an account and its first API key (shown once)')
    .requiredOption('--name <name>', 'account name')
    .option('--json', 'print JSON')
    .action((options: { name: string; json?: boolean }) =>
      withDeps(async (deps, core) => {
        const input = core.parseInput(core.CreateAccountInput, { name: options.name });
        const { account, apiKey, key } = await core.createAccount(deps, input);
        printRecord(
          { account_id: account.id, account_name: account.name, api_key_id: apiKey.id, api_key: key },
          options,
        );
        if (!options.json) print('Store the API key now: it is not shown again.');
      }),
    );
  accounts
    .command('limits')
    .description("Set an account's limits (a number, 0 for none, or 'default' for the service's)")
    .argument('<account-id>')
    .option('--key-per-minute <n>', 'requests a minute per API key or dashboard user')
    .option('--account-per-minute <n>', 'requests a minute for the whole account')
    .option('--dials-per-minute <n>', 'dials a minute for the whole account')
    .option('--max-concurrent-calls <n>', 'calls in progress at once, direct dials and campaigns together')
    .option('--json', 'print JSON')
    .action(
      (
        accountId: string,
        options: {
          keyPerMinute?: string;
          accountPerMinute?: string;
          dialsPerMinute?: string;
          maxConcurrentCalls?: string;
          json?: boolean;
        },
      ) =>
        withDeps(async (deps, core) => {
          const limit = (value: string | undefined) =>
            value === undefined ? undefined : value === 'default' ? null : Number(value);
          const input = core.parseInput(core.SetAccountLimitsInput, {
            key_requests_per_minute: limit(options.keyPerMinute),
            account_requests_per_minute: limit(options.accountPerMinute),
            dials_per_minute: limit(options.dialsPerMinute),
            max_concurrent_calls: limit(options.maxConcurrentCalls),
          });
          printRecord(await core.setAccountLimits(deps, { accountId, ...input }), options);
        }),
    );
  accounts
    .command('cost-rates')
    .description(
      'Set an account\'s own call cost rates over the deployment\'s (docs/operations.md, "Call cost")',
    )
    .argument('<account-id>')
    .option('--rates <json>', 'any of the rates as JSON, e.g. \'{"carrier_per_minute": 0.0085}\'')
    .option('--default', "back to the deployment's rates")
    .option('--json', 'print JSON')
    .action((accountId: string, options: { rates?: string; default?: boolean; json?: boolean }) =>
      withDeps(async (deps, core) => {
        if (Boolean(options.rates) === Boolean(options.default))
          throw new core.AppError('VALIDATION_FAILED', 'give either --rates <json> or --default');
        let json: unknown = null;
        if (options.rates)
          try {
            json = JSON.parse(options.rates);
          } catch {
            throw new core.AppError('VALIDATION_FAILED', 'rates: must be JSON');
          }
        const rates = options.default ? null : core.parseInput(core.CostRatesOverride, json);
        printRecord(await core.setAccountCostRates(deps, { accountId, rates }), options);
      }),
    );
}
