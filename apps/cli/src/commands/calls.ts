import type { Command } from 'commander';
import type { FullCall } from '@voice/core';
import { withAccount } from '../context';
import { printRecord, printRows } from '../output';
import { print } from '../io';

const COLUMNS = [
  'call_id',
  'call_status',
  'disconnection_reason',
  'from_number',
  'to_number',
  'agent',
  'duration_ms',
  'start_timestamp',
];

function parseVars(pairs: string[]): Record<string, string> {
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      return at > 0 ? [pair.slice(0, at), pair.slice(at + 1)] : [pair, ''];
    }),
  );
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerCallCommands(program: Command): void {
  const calls = program.command('calls').description("Place and inspect an account's calls");

  calls
    .command('dial')
    .description('Place an outbound call (the worker starts it)')
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--from <e164>', "one of the account's numbers")
    .requiredOption('--to <e164>', 'destination')
    .option('--agent <id>', 'agent to use instead of the number’s')
    .option('--var <name=value>', 'a call variable (repeatable)', collect, [])
    .option('--idempotency-key <key>', 'dial at most once for this key (24 hours)')
    .option('--json', 'print JSON')
    .action(
      (options: {
        account: string;
        from: string;
        to: string;
        agent?: string;
        var: string[];
        idempotencyKey?: string;
        json?: boolean;
      }) =>
        withAccount(options.account, async (deps, accountId, core) => {
          const input = core.parseInput(core.DialCallInput, {
            from_number: options.from,
            to_number: options.to,
            override_agent_id: options.agent,
            vars_provided: parseVars(options.var),
          });
          const { body } = await core.dialCallIdempotently(deps, {
            accountId,
            idempotencyKey: options.idempotencyKey,
            ...input,
          });
          printRecord(body, options);
        }),
    );

  calls
    .command('get')
    .description('Show a call with its transcript')
    .argument('<call-id>')
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'print JSON')
    .action((callId: string, options: { account: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) =>
        printRecord(await core.getCall(deps, { accountId, callId }), options),
      ),
    );

  for (const [name, description, end] of [
    ['hangup', 'Hang up a call in progress (needs TEMPORAL_ADDRESS)', 'hangUpCall'],
    [
      'transfer',
      "Transfer a connected call to its agent's transfer destination (needs TEMPORAL_ADDRESS)",
      'transferCall',
    ],
  ] as const)
    calls
      .command(name)
      .description(description)
      .argument('<call-id>')
      .requiredOption('--account <id>', 'account id')
      .option('--json', 'print JSON')
      .action((callId: string, options: { account: string; json?: boolean }) =>
        withAccount(options.account, async (deps, accountId, core) =>
          printRecord(await core[end](deps, { accountId, callId }), options),
        ),
      );

  calls
    .command('list')
    .description('List calls, newest first')
    .requiredOption('--account <id>', 'account id')
    .option('--status <status>', 'only this status (repeatable)', collect, [])
    .option('--limit <n>', '1-1000', '50')
    .option('--include-test-calls', 'include calls to test contacts')
    .option('--json', 'print JSON')
    .action(
      (options: {
        account: string;
        status: string[];
        limit: string;
        includeTestCalls?: boolean;
        json?: boolean;
      }) =>
        withAccount(options.account, async (deps, accountId, core) => {
          const input = core.parseInput(core.ListCallsInput, {
            limit: Number(options.limit),
            filter_criteria: {
              ...(options.status.length ? { call_status: options.status } : {}),
              include_test_calls: options.includeTestCalls ?? false,
            },
          });
          const result = await core.listCalls(deps, { accountId, ...input });
          if (options.json) return printRecord(result, options);
          printRows(
            result.calls.map((call) => ({
              ...call,
              agent: call.agent?.name ?? '(none)',
              start_timestamp: new Date(call.start_timestamp).toISOString(),
            })),
            COLUMNS,
            options,
          );
          print(`${result.calls.length} of ${result.total_count} call(s)`);
        }),
    );

  calls
    .command('watch')
    .description("Follow a call's status live until it ends")
    .argument('<call-id>')
    .requiredOption('--account <id>', 'account id')
    .option('--interval <ms>', 'how often to look', '500')
    .option('--timeout <seconds>', 'give up after this long', '600')
    .action((callId: string, options: { account: string; interval: string; timeout: string }) =>
      withAccount(options.account, async (deps, accountId, core) => {
        const deadline = Date.now() + Number(options.timeout) * 1000;
        let last = '';
        let call: FullCall;
        for (;;) {
          call = await core.getCall(deps, { accountId, callId });
          if (call.call_status !== last) {
            last = call.call_status;
            const reason = call.disconnection_reason ? ` (${call.disconnection_reason})` : '';
            print(`${new Date().toISOString()}  ${call.call_status}${reason}`);
          }
          if ((core.TERMINAL_STATUSES as readonly string[]).includes(call.call_status)) break;
          if (Date.now() > deadline) throw new Error(`call ${callId} did not end within ${options.timeout}s`);
          await new Promise((resolve) => setTimeout(resolve, Number(options.interval)));
        }
        if (call.summary) print(`summary: ${call.summary}`);
      }),
    );
}
