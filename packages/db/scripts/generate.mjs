// Runs `prisma generate` without network access. The Prisma CLI insists on a native schema-engine
// binary before generating, which it would download; any existing file satisfies that check, and
// generation itself never executes it. Migrations are applied by our own runner (src/migrate.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync, chmodSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const prismaBin = join(root, 'node_modules', '.bin', 'prisma');
if (!existsSync(prismaBin)) {
  console.log('[db] prisma CLI not installed yet; skipping generate');
  process.exit(0);
}
const stubDir = join(root, 'node_modules', '.cache', 'schema-engine-stub');
const stub = join(stubDir, 'schema-engine');
if (!existsSync(stub)) {
  mkdirSync(stubDir, { recursive: true });
  writeFileSync(
    stub,
    '#!/bin/sh\necho "schema engine not available: migrations run through pnpm db:migrate" >&2\nexit 1\n',
  );
  chmodSync(stub, 0o755);
}
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: stub,
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  CHECKPOINT_DISABLE: '1',
};
const result = spawnSync(prismaBin, ['generate'], { cwd: root, env, stdio: 'inherit' });
process.exit(result.status ?? 1);
