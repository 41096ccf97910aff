import type { Command } from 'commander';
import type { CoreDeps } from '@voice/core';
import { withAccount, type Core } from './context';
import { printRecord, printRows } from './output';

/** What a command acting inside one account gets: the account's deps, its id, core and its options. */
export interface AccountAction<O> {
  deps: CoreDeps;
  accountId: string;
  core: Core;
  options: O;
}

type Printable = Record<string, unknown>;

export interface AccountCommandSpec<O, A extends unknown[]> {
  description?: string;
  /** Positional arguments, as commander writes them (`<number>`, `<numbers...>`), with their help. */
  arguments?: [name: string, description?: string][];
  options?: [flags: string, description: string][];
  requiredOptions?: [flags: string, description: string][];
  /** Print the result as rows under these columns (a list); otherwise as one record. */
  columns?: string[];
  run(action: AccountAction<O>, ...args: A): Promise<Printable | Printable[]>;
}

/**
 * A subcommand that acts inside one account, as the CLI's list, add and remove commands do: every one
 * takes `--account <id>` (checked to name an account) and `--json`, and prints what it did as a record,
 * or as a table of rows under `columns`.
 */
export function accountCommand<O extends object = object, A extends unknown[] = []>(
  parent: Command,
  name: string,
  spec: AccountCommandSpec<O, A>,
): Command {
  const command = parent.command(name);
  if (spec.description) command.description(spec.description);
  for (const [argument, description] of spec.arguments ?? []) command.argument(argument, description);
  command.requiredOption('--account <id>', 'account id');
  for (const [flags, description] of spec.requiredOptions ?? []) command.requiredOption(flags, description);
  for (const [flags, description] of spec.options ?? []) command.option(flags, description);
  command.option('--json', 'print JSON');
  return command.action((...params: unknown[]) => {
    // commander passes the positional arguments, then the options, then the command itself.
    const options = params.at(-2) as O & { account: string; json?: boolean };
    const args = params.slice(0, -2) as A;
    return withAccount(options.account, async (deps, accountId, core) => {
      const result = await spec.run({ deps, accountId, core, options }, ...args);
      if (spec.columns) printRows(result as Printable[], spec.columns, options);
      else printRecord(result as Printable, options);
    });
  });
}
