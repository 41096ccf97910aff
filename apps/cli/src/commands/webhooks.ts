import type { Command } from 'commander';
import { withAccount } from '../context';
import { printRecord, printRows } from '../output';

const COLUMNS = ['delivery_id', 'event_type', 'call_id', 'url', 'status', 'attempt_count', 'created_at'];
const ATTEMPT_COLUMNS = ['number', 'started_at', 'status_code', 'error', 'latency_ms', 'response_body'];

export function registerWebhookCommands(program: Command): void {
  const webhooks = program.command('webhooks').description('Inspect and replay webhook deliveries');

  webhooks
    .command('deliveries')
    .description('List deliveries, newest first')
    .requiredOption('--account <id>', 'account id')
    .option('--call <id>', 'only deliveries of this call')
    .option('--agent <id>', "only deliveries to this agent's webhooks")
    .option('--status <status>', 'pending, delivered, failed or disabled')
    .option('--limit <n>', '1-1000', '50')
    .option('--json', 'print JSON')
    .action(
      (options: {
        account: string;
        call?: string;
        agent?: string;
        status?: string;
        limit: string;
        json?: boolean;
      }) =>
        withAccount(options.account, async (deps, accountId, core) => {
          const input = core.parseInput(core.ListDeliveriesInput, {
            call_id: options.call,
            agent_id: options.agent,
            status: options.status,
            limit: Number(options.limit),
          });
          printRows(await core.listDeliveries(deps, { accountId, ...input }), COLUMNS, options);
        }),
    );

  webhooks
    .command('delivery')
    .description('Show a delivery with every attempt')
    .argument('<delivery-id>')
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'print JSON')
    .action((deliveryId: string, options: { account: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) => {
        const { attempts, ...delivery } = await core.getDelivery(deps, { accountId, deliveryId });
        if (options.json) return printRecord({ ...delivery, attempts }, options);
        printRecord(delivery, options);
        printRows(attempts, ATTEMPT_COLUMNS, options);
      }),
    );

  webhooks
    .command('redeliver')
    .description(
      'Send a delivery again: a new attempt chain with the same webhook-id (needs TEMPORAL_ADDRESS)',
    )
    .argument('<delivery-id>')
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'print JSON')
    .action((deliveryId: string, options: { account: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) =>
        printRecord(await core.redeliver(deps, { accountId, deliveryId }), options),
      ),
    );
}
