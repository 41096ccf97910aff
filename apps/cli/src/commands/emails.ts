import type { Command } from 'commander';
import { withAccount } from '../context';
import { printRows } from '../output';

const COLUMNS = ['email_id', 'to', 'subject', 'status', 'attempts', 'created_at'];

export function registerEmailCommands(program: Command): void {
  const emails = program
    .command('emails')
    .description('Notification emails: the outbox without SMTP, the send log with it');

  emails
    .command('list')
    .description('List notification emails, newest first (--json includes the body)')
    .requiredOption('--account <id>', 'account id')
    .option('--call <id>', 'only emails about this call')
    .option('--status <status>', 'outbox, pending, sent or failed')
    .option('--limit <n>', '1-1000', '50')
    .option('--json', 'print JSON')
    .action((options: { account: string; call?: string; status?: string; limit: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) => {
        const input = core.parseInput(core.ListEmailsInput, {
          call_id: options.call,
          status: options.status,
          limit: Number(options.limit),
        });
        printRows(await core.listNotificationEmails(deps, { accountId, ...input }), COLUMNS, options);
      }),
    );
}
