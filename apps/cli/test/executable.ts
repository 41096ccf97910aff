import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TEST_SECRETS_KEY } from '@voice/core/testing';

const BIN = fileURLToPath(new URL('../bin/voice.mjs', import.meta.url));

export interface VoiceResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment a test's command runs with: the database's, and no Temporal address unless `extraEnv` has one. */
export function commandEnv(databaseUrl: string, extraEnv: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.TEMPORAL_ADDRESS;
  return Object.assign(env, { DATABASE_URL: databaseUrl, SECRETS_KEY: TEST_SECRETS_KEY, ...extraEnv });
}

/** Runs the compiled `voice` executable (`pnpm build`), a process of its own, as a shell does. */
export function voiceExecutable(databaseUrl: string, extraEnv: Record<string, string> = {}) {
  return (...args: string[]): Promise<VoiceResult> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [BIN, ...args], { env: commandEnv(databaseUrl, extraEnv) });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    });
}
