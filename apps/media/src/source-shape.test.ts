import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The media server's shape: a transport (lines: what carries a call's audio) and a conversation (what is
 * said on a line) that meet only at the Line interface, so a second line (web calls) or a second kind
 * of conversation (flows) is added on one side without touching the other; and no file does five jobs.
 */

const SRC = dirname(fileURLToPath(import.meta.url));
const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
/** Each file's imports of the server's own files, as paths from src/. */
const imports = new Map(
  files.map((file) => [
    file,
    [...readFileSync(join(SRC, file), 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g)].map(([, path]) =>
      relative(SRC, normalize(join(SRC, dirname(file), `${path}.ts`))),
    ),
  ]),
);

describe('the media server source', () => {
  it('meets between transport and conversation only at the Line interface', () => {
    const crossing = [...imports].flatMap(([file, targets]) =>
      targets
        .filter(
          (target) =>
            (file.startsWith('transport/') && target.startsWith('conversation/')) ||
            (file.startsWith('conversation/') &&
              target.startsWith('transport/') &&
              target !== 'transport/line.ts'),
        )
        .map((target) => `${file} → ${target}`),
    );
    expect(files.filter((file) => file.startsWith('transport/')).length).toBeGreaterThan(3);
    expect(files.filter((file) => file.startsWith('conversation/')).length).toBeGreaterThan(3);
    expect(crossing).toEqual([]);
  });

  it('has no file over 300 lines', () => {
    const long = files
      .map((file) => ({ file, lines: readFileSync(join(SRC, file), 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > 300);
    expect(long).toEqual([]);
  });
});
