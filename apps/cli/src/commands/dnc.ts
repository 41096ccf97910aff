import type { Command } from 'commander';
import { accountCommand } from '../account-command';
import { readCsv } from '../csv';

const BATCH = 5000;

export function registerDoNotCallCommands(program: Command): void {
  const dnc = program.command('dnc').description("Manage an account's do-not-call list");

  accountCommand<{ reason?: string }, [string[]]>(dnc, 'add', {
    arguments: [['<numbers...>', 'E.164 numbers']],
    options: [['--reason <text>', 'why']],
    run: ({ deps, accountId, core, options }, numbers) =>
      core.addDoNotCall(deps, { accountId, phone_numbers: numbers, reason: options.reason }),
  });

  accountCommand<{ reason?: string }, [string]>(dnc, 'import', {
    description: 'Import a CSV whose header names a phone_number column (every number is checked first)',
    arguments: [['<file.csv>']],
    options: [['--reason <text>', 'why']],
    async run({ deps, accountId, core, options }, file) {
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
      return { added, already_listed: already };
    },
  });

  accountCommand(dnc, 'list', {
    columns: ['phone_number', 'reason', 'created_at'],
    run: ({ deps, accountId, core }) => core.listDoNotCall(deps, { accountId }),
  });

  accountCommand<object, [string]>(dnc, 'remove', {
    arguments: [['<number>']],
    run: ({ deps, accountId, core }, phoneNumber) =>
      core.removeDoNotCall(deps, { accountId, phone_number: phoneNumber }),
  });
}
