/** Bounds that numeric inputs share with what stores them (checked over every input schema: apps/api/src/http/input-bounds.test.ts). */

/** The largest value of a Postgres `integer` (int4) column. */
export const INT4_MAX = 2_147_483_647;

/** The last instant a JavaScript Date holds (ECMA-262 TimeClip), in Unix ms. */
export const LAST_DATE_MS = 8.64e15;
