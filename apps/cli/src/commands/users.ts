import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { withAccount, withDeps } from '../context';
import { printRecord } from '../output';
import { print } from '../io';

interface PasswordOptions {
  passwordStdin?: boolean;
  json?: boolean;
}

/** The password from standard input (one line), or a new random one that is printed once. */
async function passwordFrom(options: PasswordOptions): Promise<{ password: string; generated: boolean }> {
  if (!options.passwordStdin) return { password: randomBytes(15).toString('base64url'), generated: true };
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return {
    password: Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, ''),
    generated: false,
  };
}

function printUser(
  user: { id: string; email: string },
  secret: { password: string; generated: boolean },
  options: PasswordOptions,
) {
  printRecord(
    { user_id: user.id, email: user.email, ...(secret.generated ? { password: secret.password } : {}) },
    options,
  );
  if (secret.generated && !options.json) print('Store the password now: it is not shown again.');
}

export function registerUserCommands(program: Command): void {
  const users = program
    .command('users')
    .description('Manage dashboard users (sign-in with email and password)');
  users
    .command('create')
    .description('Create a dashboard user in an account; prints a generated password unless --password-stdin')
    .requiredOption('--account <account-id>', 'the account the user belongs to')
    .requiredOption('--email <email>', 'the email the user signs in with')
    .option('--name <name>', 'display name')
    .option('--password-stdin', 'read the password from standard input instead of generating one')
    .option('--json', 'print JSON')
    .action((options: PasswordOptions & { account: string; email: string; name?: string }) =>
      withAccount(options.account, async (deps, accountId, core) => {
        const secret = await passwordFrom(options);
        const input = core.parseInput(core.CreateUserInput, {
          email: options.email,
          name: options.name,
          password: secret.password,
        });
        printUser(await core.createUser(deps, { accountId, ...input }), secret, options);
      }),
    );
  users
    .command('reset-password')
    .description(
      "Set a user's password and sign them out everywhere; prints a generated one unless --password-stdin",
    )
    .requiredOption('--email <email>', 'the user')
    .option('--password-stdin', 'read the password from standard input instead of generating one')
    .option('--json', 'print JSON')
    .action((options: PasswordOptions & { email: string }) =>
      withDeps(async (deps, core) => {
        const secret = await passwordFrom(options);
        const input = core.parseInput(core.SetPasswordInput, {
          email: options.email,
          password: secret.password,
        });
        printUser(await core.setUserPassword(deps, input), secret, options);
      }),
    );
}
