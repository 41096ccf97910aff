import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TEST_SECRETS_KEY } from '@voice/core/testing';

const BIN = fileURLToPath(new URL('../bin/voice.mjs', import.meta.url));

/** Runs the real `voice` executable against a database, without a Temporal address unless `extraEnv` has one. */
export function voiceCli(databaseUrl: string, extraEnv: Record<string, string> = {}) {
  return (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const env: NodeJS.ProcessEnv = { ...process.env };
      delete env.TEMPORAL_ADDRESS;
      Object.assign(env, { DATABASE_URL: databaseUrl, SECRETS_KEY: TEST_SECRETS_KEY, ...extraEnv });
      const child = spawn(process.execPath, [BIN, ...args], { env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    });
}
