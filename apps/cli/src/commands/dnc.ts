import type { Command } from 'commander';
import { withAccount } from '../context';
import { readCsv } from '../csv';
import { printRecord, printRows } from '../output';

const BATCH = 5000;

export function registerDoNotCallCommands(program: Command): void {
  const dnc = program.command('dnc').description("Manage an account's do-not-call list");

  dnc
    .command('add')
    .argument('<numbers...>', 'E.164 numbers')
    .requiredOption('--account <id>', 'account id')
    .option('--reason <text>', 'why')
    .option('--json', 'print JSON')
    .action((numbers: string[], options: { account: string; reason?: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) =>
        printRecord(
          await core.addDoNotCall(deps, { accountId, phone_numbers: numbers, reason: options.reason }),
          options,
        ),
      ),
    );

  dnc
    .command('import')
    .description('Import a CSV whose header names a phone_number column (every number is checked first)')
    .argument('<file.csv>')
    .requiredOption('--account <id>', 'account id')
    .option('--reason <text>', 'why')
    .option('--json', 'print JSON')
    .action((file: string, options: { account: string; reason?: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) => {
        const numbers: string[] = [];
        let column = -1;
        for await (const item of readCsv(file)) {
          if ('header' in item) {
            column = item.header.indexOf('phone_number');
            if (column < 0)
              throw new core.AppError(
                'VALIDATION_FAILED',
                `${file}: the header must name a phone_number column`,
              );
          } else if (!item.fields?.[column]) {
            throw new core.AppError('VALIDATION_FAILED', `${file}: line ${item.line} has no phone_number`);
          } else numbers.push(core.parseE164(item.fields[column]!.trim(), `line ${item.line}: phone_number`));
        }
        let added = 0;
        let already = 0;
        // Every number was checked above, so the batches below all succeed or the import writes nothing.
        for (let from = 0; from < numbers.length; from += BATCH) {
          const result = await core.addDoNotCall(deps, {
            accountId,
            phone_numbers: numbers.slice(from, from + BATCH),
            reason: options.reason,
          });
          added += result.added;
          already += result.already_listed;
        }
        printRecord({ added, already_listed: already }, options);
      }),
    );

  dnc
    .command('list')
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'print JSON')
    .action((options: { account: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) =>
        printRows(
          await core.listDoNotCall(deps, { accountId }),
          ['phone_number', 'reason', 'created_at'],
          options,
        ),
      ),
    );

  dnc
    .command('remove')
    .argument('<number>')
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'print JSON')
    .action((phoneNumber: string, options: { account: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) =>
        printRecord(await core.removeDoNotCall(deps, { accountId, phone_number: phoneNumber }), options),
      ),
    );
}
