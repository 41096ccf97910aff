import { runCli } from '../src/run';
import { commandEnv, type VoiceResult } from './executable';

export { voiceExecutable } from './executable';

/**
 * Runs `voice` commands inside the test process (`runCli`, what the executable runs) with an
 * environment and outputs of their own: the same program, its exit code and its two outputs, without
 * a Node process started for each command.
 */
export function voiceCli(databaseUrl: string, extraEnv: Record<string, string> = {}) {
  return async (...args: string[]): Promise<VoiceResult> => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, {
      env: commandEnv(databaseUrl, extraEnv),
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
    });
    return { code, stdout, stderr };
  };
}
