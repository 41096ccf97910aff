// Plain JavaScript (types in vitest-order.d.ts): vitest's configuration files load it as it is, and they
// cannot load a workspace package's TypeScript.
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { BaseSequencer } from 'vitest/node';

/**
 * A vitest sequencer that starts the named files first, in the order given (a suite's longest, by their
 * times in CI), then the rest in vitest's own order. On a clean clone vitest knows no file's time and
 * starts the largest first, so a short file with a long run (the chaos run's is a few lines) would start
 * last and run alone at the end while the suite's other workers sit idle.
 *
 * @param {string[]} files paths relative to the suite's root
 */
export function longestFirst(files) {
  return class LongestFirst extends BaseSequencer {
    /** @param {import('vitest/node').TestSpecification[]} specifications */
    async sort(specifications) {
      // A file renamed or removed would drop out of the order unnoticed.
      const root = this.ctx.config.root;
      const missing = files.filter((file) => !existsSync(resolve(root, file)));
      if (missing.length > 0)
        throw new Error(`longestFirst names files that do not exist: ${missing.join(', ')}`);
      /** @param {import('vitest/node').TestSpecification} specification */
      const rank = (specification) => {
        const index = files.indexOf(relative(specification.project.config.root, specification.moduleId));
        return index === -1 ? files.length : index;
      };
      const sorted = await super.sort(specifications);
      // Array.prototype.sort is stable: the files not named keep vitest's order after the named ones.
      return sorted.sort((a, b) => rank(a) - rank(b));
    }
  };
}
