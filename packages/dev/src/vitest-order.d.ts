import type { BaseSequencer } from 'vitest/node';

/** See vitest-order.js. */
export declare function longestFirst(files: string[]): typeof BaseSequencer;
