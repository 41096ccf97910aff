import { spawn } from 'node:child_process';

const SCRIPT = `
const { monitorEventLoopDelay } = require('node:perf_hooks');
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
process.stdin.once('data', () => {
  process.stdout.write(JSON.stringify({ p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 }));
  process.exit(0);
});
process.stdout.write('ready\\n');
`;

export interface BareLoop {
  /** Its event loop delay (ms) since it started, and it exits. */
  stop(): Promise<{ p99: number; max: number }>;
}

/**
 * A Node process with nothing to do, measuring its own event loop delay (as prom-client's default
 * metrics do, 10 ms resolution): what the machine's load alone costs a process over the same window. A
 * test that bounds a service's event loop delay subtracts it, so a busy machine (another suite beside it)
 * is not taken for the service blocking its loop.
 */
export async function startBareLoop(): Promise<BareLoop> {
  const child = spawn(process.execPath, ['-e', SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.stdout.on('data', () => output.startsWith('ready\n') && resolve());
  });
  return {
    stop: () =>
      new Promise((resolve, reject) => {
        child.once('exit', () => {
          try {
            resolve(JSON.parse(output.slice('ready\n'.length)) as { p99: number; max: number });
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
        child.stdin.write('report\n');
      }),
  };
}
