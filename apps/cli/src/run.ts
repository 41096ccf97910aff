import { CommanderError } from 'commander';
import { processIo, withRun, type CliIo } from './io';
import { createProgram } from './program';

/**
 * Runs the CLI on `args` (what follows `voice` on the command line) and resolves to its exit code. The
 * `voice` executable runs it with the process's environment and outputs; it runs as well inside another
 * process with an environment and outputs of its own, several runs at once, and never exits that process.
 */
export async function runCli(args: string[], io: CliIo = processIo()): Promise<number> {
  try {
    return await withRun(io, () => createProgram(io).parseAsync(args, { from: 'user' }));
  } catch (error) {
    // Usage errors and help: commander has written what it had to say.
    if (error instanceof CommanderError) return error.exitCode;
    // Errors are the user's to fix (a domain error, a missing setting): print the message, not a stack.
    io.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
