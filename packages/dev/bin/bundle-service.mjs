#!/usr/bin/env node
// `bundle-service <entry.ts>... [--inline <package>]... [--copy <dir>]...`: compiles a service's entry
// points to dist/ as ES modules. The workspace's own packages (@voice/*) are compiled in, and so are the
// packages named with --inline (with what they import that the service does not depend on): Prisma's
// runtime and tRPC's server, whose optional peers would otherwise put the Prisma CLI and TypeScript into a
// production install. Every other package stays an import that Node resolves from node_modules at run
// time, so it must be a dependency of the service itself (checked here): then `pnpm deploy --prod` of the
// service installs exactly what its JavaScript imports. --copy puts a directory the service reads at run
// time (SQL migrations) into dist/ under its own name. A module's worker thread (`name.worker.mjs` beside
// `name.ts`, plain JavaScript it loads by URL) ships beside the bundle of every service that compiles the
// module in, its imports checked as the bundle's are.
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { basename, join, sep } from 'node:path';
import { build } from 'esbuild';

const args = process.argv.slice(2);
const valuesOf = (flag) => args.flatMap((arg, index) => (args[index - 1] === flag ? [arg] : []));
const flags = new Set(['--inline', '--copy']);
const entries = args.filter((arg, index) => !flags.has(arg) && !flags.has(args[index - 1]));
if (entries.length === 0) {
  console.error('usage: bundle-service <entry.ts>... [--inline <package>]... [--copy <dir>]...');
  process.exit(2);
}

const manifest = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8'));
const dependencies = new Set(Object.keys(manifest.dependencies ?? {}));
const inline = new Set(valuesOf('--inline'));
const builtins = new Set(builtinModules);
const packageName = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const missing = new Map();
const compiledIn = new Set();

const externalPackages = {
  name: 'external-packages',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^[^./]/ }, ({ path, importer }) => {
      if (path.startsWith('node:') || builtins.has(path)) return { external: true };
      const name = packageName(path);
      if (name.startsWith('@voice/')) return undefined;
      if (dependencies.has(name)) return { external: true };
      // Compiled in: a package named with --inline, or what such a package imports.
      if (inline.has(name) || importer.includes(`${sep}node_modules${sep}`)) {
        compiledIn.add(name);
        return undefined;
      }
      missing.set(name, importer);
      return { external: true };
    });
  },
};

// Outputs of an earlier build (chunks renamed since) must not ship.
rmSync('dist', { recursive: true, force: true });
const result = await build({
  entryPoints: entries,
  outdir: 'dist',
  bundle: true,
  // Dynamic imports become chunks of their own, loaded when first used (the CLI's Temporal client).
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
  // CommonJS code compiled in may require Node's built-in modules.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  plugins: [externalPackages],
});

// Workers of the modules compiled in: copied beside the bundle, which loads them relative to itself.
const workers = Object.keys(result.metafile.inputs)
  .map((input) => input.replace(/\.ts$/, '.worker.mjs'))
  .filter((worker) => worker.endsWith('.worker.mjs') && existsSync(worker));
for (const worker of workers) {
  for (const [, specifier] of readFileSync(worker, 'utf8').matchAll(/^import [^'"]*['"]([^'"]+)['"]/gm)) {
    if (specifier.startsWith('.') || specifier.startsWith('node:') || builtins.has(specifier)) continue;
    if (!dependencies.has(packageName(specifier))) missing.set(packageName(specifier), worker);
  }
  cpSync(worker, join('dist', basename(worker)));
}

if (missing.size > 0) {
  for (const [name, importer] of missing)
    console.error(`${manifest.name}: ${name} (imported by ${importer}) is not in its dependencies`);
  process.exit(1);
}
// A chunk that only holds a WebAssembly module as base64 (Prisma's query compiler) gets no source map: it
// maps one string literal, and Node would otherwise keep its megabytes of parsed map in every process.
for (const [file, output] of Object.entries(result.metafile.outputs)) {
  const inputs = Object.keys(output.inputs);
  if (
    !file.endsWith('.js') ||
    inputs.length === 0 ||
    !inputs.every((input) => /\.wasm-base64\.m?js$/.test(input))
  )
    continue;
  rmSync(`${file}.map`);
  writeFileSync(file, readFileSync(file, 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\n?$/, '\n'));
}
for (const dir of valuesOf('--copy')) cpSync(dir, join('dist', basename(dir)), { recursive: true });
for (const [file, output] of Object.entries(result.metafile.outputs)) {
  if (!file.endsWith('.map'))
    console.log(`${manifest.name}: ${file} (${Math.round(output.bytes / 1024)} KB)`);
}
console.log(`${manifest.name}: compiled in ${[...compiledIn].sort().join(', ') || 'no other packages'}`);
