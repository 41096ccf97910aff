// `pnpm bench [dial|call-list|webhooks|campaign|load]`: runs the named benchmark, or all of them. Not part of the test suite.
const benches = {
  dial: './dial',
  'call-list': './call-list',
  webhooks: './webhooks',
  campaign: './campaign',
  load: './load',
} as const;
const names = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(benches);
for (const name of names) {
  if (!(name in benches)) {
    console.error(`unknown benchmark ${name}; choose from ${Object.keys(benches).join(', ')}`);
    process.exit(2);
  }
}
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const tsx = createRequire(import.meta.url).resolve('tsx/cli');
for (const name of names) {
  const file = fileURLToPath(new URL(`${benches[name as keyof typeof benches]}.ts`, import.meta.url));
  const result = spawnSync(process.execPath, [tsx, file], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
