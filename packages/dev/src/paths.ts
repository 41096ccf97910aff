import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { env } from './env';

/** The repository root, where the git-ignored `.data/` (dev state) lives. */
export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/**
 * Where the Go-built tools go (the Temporal CLI and server, helm, kubeconform), each under its version:
 * VOICE_TOOLS_CACHE, else `$XDG_CACHE_HOME/voice-agent-calling` (`~/.cache/voice-agent-calling`). They are
 * the machine's, like Go's own caches: a second clone, or a clean one in CI, uses them as they are rather
 * than linking them again (about 35 s).
 */
export const CACHE_DIR =
  env.toolsCacheDir ?? join(env.xdgCacheHome ?? join(homedir(), '.cache'), 'voice-agent-calling');
/** `pnpm dev`'s state (database, Temporal history, secrets, demo credentials): DEV_DATA_DIR, else `.data/`. */
export const DATA_DIR = env.devDataDir ?? join(REPO_ROOT, '.data');
