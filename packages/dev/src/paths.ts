import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { env } from './env';

/** The repository root, where the git-ignored `.cache/` (tool builds) and `.data/` (dev state) live. */
export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const CACHE_DIR = join(REPO_ROOT, '.cache');
/** `pnpm dev`'s state (database, Temporal history, secrets, demo credentials): DEV_DATA_DIR, else `.data/`. */
export const DATA_DIR = env.devDataDir ?? join(REPO_ROOT, '.data');
