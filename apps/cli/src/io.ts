import { AsyncLocalStorage } from 'node:async_hooks';
import type { CliEnv } from './env';

/** Where a run writes: the process's stdout and stderr, or a caller's (a test capturing output). */
export interface CliOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** What one run of the CLI sees: its environment (the process's when not given) and its two outputs. */
export interface CliIo {
  env?: NodeJS.ProcessEnv;
  stdout: CliOutput;
  stderr: CliOutput;
}

interface Run {
  io: CliIo;
  exitCode: number;
}

/** The `voice` executable's: the process's environment and outputs. */
export const processIo = (): CliIo => ({ stdout: process.stdout, stderr: process.stderr });
const runs = new AsyncLocalStorage<Run>();
const current = (): Run => {
  const run = runs.getStore();
  if (!run) throw new Error('A command runs inside runCli');
  return run;
};

/** The running command's outputs. */
export const stdout = (): CliOutput => current().io.stdout;

/** Prints a line on the running command's stdout. */
export const print = (line: string): void => void current().io.stdout.write(`${line}\n`);

/** Prints a line on the running command's stderr. */
export const printError = (line: string): void => void current().io.stderr.write(`${line}\n`);

/** The command ends with this exit code although it did not fail (`voice doctor` finding a violation). */
export function exitWith(code: number): void {
  current().exitCode = code;
}

/** The running command's settings (env.ts), read from its environment when first asked for. */
export async function settings(): Promise<CliEnv> {
  const { readEnv } = await import('./env');
  return readEnv(current().io.env);
}

/** Runs `fn` as one run of the CLI with `io`; the exit code it asked for (0 unless exitWith). */
export async function withRun(io: CliIo, fn: () => Promise<unknown>): Promise<number> {
  const run: Run = { io, exitCode: 0 };
  await runs.run(run, fn);
  return run.exitCode;
}
