import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The shape of core, read from its imports: each folder is one area (calls, campaigns, telephony, ...),
 * and the dependencies between areas run one way. Tests are left out: a test may set up any area.
 */

const SRC = dirname(fileURLToPath(import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [relative(SRC, path)] : [];
  });
}

/** The core files a file imports (static, re-exported or dynamic), as paths under src. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*)'(\.{1,2}\/[^']*)'/g)].map((m) => m[1]!);
  return specifiers.map((specifier) => {
    const target = resolve(SRC, dirname(file), specifier);
    const path = existsSync(`${target}.ts`) ? `${target}.ts` : join(target, 'index.ts');
    return relative(SRC, path);
  });
}

/** A file's area: its top folder under src; a file at the top is an area of its own. */
const areaOf = (file: string) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : file);

const files = sourceFiles(SRC);
const imports = new Map(files.map((file) => [file, importsOf(file)]));

describe('the shape of core', () => {
  it('resolves every relative import to a file of core', () => {
    const unresolved = [...imports].flatMap(([file, targets]) =>
      targets.filter((target) => !imports.has(target)).map((target) => `${file} → ${target}`),
    );
    expect(files.length).toBeGreaterThan(100);
    expect(unresolved).toEqual([]);
  });

  it('has no two folders that import each other', () => {
    const edges = new Map<string, string[]>();
    for (const [file, targets] of imports)
      for (const target of targets) {
        const [from, to] = [areaOf(file), areaOf(target)];
        if (from !== to && file.includes('/') && target.includes('/'))
          edges.set(`${from} → ${to}`, [...(edges.get(`${from} → ${to}`) ?? []), `${file} → ${target}`]);
      }
    const mutual = [...edges.keys()]
      .map((edge) => edge.split(' → ') as [string, string])
      .filter(([from, to]) => from < to && edges.has(`${to} → ${from}`))
      .map(([from, to]) => [...edges.get(`${from} → ${to}`)!, ...edges.get(`${to} → ${from}`)!]);
    expect(edges.size).toBeGreaterThan(20);
    expect(mutual).toEqual([]);
  });

  it('has no source file over 300 lines, other than schemas', () => {
    const long = files
      .filter((file) => !file.endsWith('schemas.ts'))
      .map((file) => ({ file, lines: readFileSync(join(SRC, file), 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > 300);
    expect(long).toEqual([]);
  });

  it('keeps deps.ts and ports.ts out of every import cycle: the ports import no area that uses them', () => {
    const reaches = (from: string, goal: string) => {
      const seen = new Set<string>();
      const stack = [...(imports.get(from) ?? [])];
      while (stack.length > 0) {
        const file = stack.pop()!;
        if (file === goal) return true;
        if (seen.has(file)) continue;
        seen.add(file);
        stack.push(...(imports.get(file) ?? []));
      }
      return false;
    };
    expect(['deps.ts', 'ports.ts'].filter((file) => reaches(file, file))).toEqual([]);
    expect(new Set(imports.get('deps.ts'))).toEqual(new Set(['ports.ts']));
  });
});
