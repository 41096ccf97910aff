import type { AnyProcedure } from '@trpc/server';
import { appRouter } from '@voice/trpc';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { restRoutes } from '../rest';

/*
 * Every number an input schema takes (REST paths, queries and bodies; tRPC inputs) has a lower and an
 * upper bound of its own: what the column, the Date or the code behind it can hold (packages/core/src/
 * bounds.ts). `.int()` alone bounds a number by the safe integers, more than an `integer` column or a
 * Date holds: it does not count. Read from the route table and the router, so a new input is checked by
 * itself.
 */

/** Numbers taken only to be written as text, never stored or computed with as numbers. */
const AS_TEXT = [
  // A call's dynamic variables: strings, numbers and booleans, each kept as its text.
  /(vars_provided|dynamic_variables)\{\}$/,
];

/** Where in the schemas a number lacks a bound, as `input.path: what is missing`. */
function unbounded(schema: z.core.$ZodType | undefined, at: string, seen = new Set<unknown>()): string[] {
  if (!schema || seen.has(schema)) return [];
  seen.add(schema);
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  const inner = (child: unknown, path = at) => unbounded(child as z.core.$ZodType, path, seen);
  switch (def.type) {
    case 'number':
    case 'bigint': {
      if (AS_TEXT.some((pattern) => pattern.test(at))) return [];
      // The classic schema's bounds: its checks' (`.int()` alone gives the safe integers').
      const bounds = schema as unknown as {
        minValue: number | bigint | null;
        maxValue: number | bigint | null;
      };
      const low = bounds.minValue !== null && Number(bounds.minValue) > Number.MIN_SAFE_INTEGER;
      const high = bounds.maxValue !== null && Number(bounds.maxValue) < Number.MAX_SAFE_INTEGER;
      return low && high
        ? []
        : [`${at}: ${[!low && 'no minimum', !high && 'no maximum'].filter(Boolean).join(', ')}`];
    }
    case 'object':
      return Object.entries((def as unknown as z.core.$ZodObjectDef).shape).flatMap(([key, child]) =>
        inner(child, `${at}.${key}`),
      );
    case 'array':
      return inner(def.element, `${at}[]`);
    case 'tuple':
      return [
        ...(def.items as unknown[]).map((item, index) => inner(item, `${at}[${index}]`)).flat(),
        ...inner(def.rest, `${at}[]`),
      ];
    case 'record':
      return [...inner(def.keyType, `${at}{key}`), ...inner(def.valueType, `${at}{}`)];
    case 'union':
      return (def.options as unknown[]).flatMap((option) => inner(option));
    case 'intersection':
      return [...inner(def.left), ...inner(def.right)];
    case 'pipe':
      return inner(def.in);
    case 'lazy':
      return inner((def.getter as () => unknown)());
    default:
      return 'innerType' in def ? inner(def.innerType) : [];
  }
}

const inputs: [string, z.core.$ZodType | undefined][] = [
  ...restRoutes.flatMap((route) =>
    (['params', 'query', 'body'] as const).map(
      (part) =>
        [`${route.method} ${route.path} ${part}`, route[part] as z.core.$ZodType | undefined] as [
          string,
          z.core.$ZodType | undefined,
        ],
    ),
  ),
  ...Object.entries(appRouter._def.procedures as unknown as Record<string, AnyProcedure>).flatMap(
    ([path, procedure]) =>
      (procedure._def.inputs as z.core.$ZodType[]).map(
        (input) => [`tRPC ${path}`, input] as [string, z.core.$ZodType],
      ),
  ),
];

describe('input bounds', () => {
  it('finds the inputs: every route and procedure', () => {
    expect(inputs.filter(([, schema]) => schema).length).toBeGreaterThan(100);
  });

  it('bounds every number an input takes, at both ends', () => {
    expect(inputs.flatMap(([name, schema]) => unbounded(schema, name))).toEqual([]);
  });

  it('sees what is not bounded', async () => {
    const { z } = await import('zod');
    expect(unbounded(z.object({ a: z.number().int(), b: z.array(z.number().min(0).max(5)) }), 'x')).toEqual([
      'x.a: no minimum, no maximum',
    ]);
    expect(unbounded(z.object({ after: z.number().int().min(0).optional() }), 'x')).toEqual([
      'x.after: no maximum',
    ]);
  });
});
