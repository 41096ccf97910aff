import type { z } from 'zod';
import { AppError } from './errors';
import { describeIssues, formatPath } from './validation-messages';

export { describeIssues, formatPath } from './validation-messages';

/** Deeper JSON than any request of the API needs; bounded so nothing downstream recurses without end. */
export const MAX_INPUT_DEPTH = 32;

/** What Postgres text and jsonb cannot hold: the NUL character and unpaired UTF-16 surrogates. */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const UNSTORABLE = /\u0000|\p{Cs}/u;
const INVALID_TEXT = 'must not contain a NUL character or an unpaired surrogate';

/**
 * Refuses, with a 400 naming the field, what passes a schema but no store or serializer can take:
 * text Postgres cannot hold (UNSTORABLE) in any string or key, and nesting deeper than
 * MAX_INPUT_DEPTH. Walks without recursion, so a hostile depth cannot overflow the stack here either.
 */
export function assertSafeInput(value: unknown, label = 'body'): void {
  const stack: { value: unknown; path: PropertyKey[] }[] = [{ value, path: [] }];
  const name = (path: PropertyKey[]) => formatPath(path) || label;
  while (stack.length > 0) {
    const { value: item, path } = stack.pop()!;
    if (typeof item === 'string') {
      if (UNSTORABLE.test(item)) throw new AppError('VALIDATION_FAILED', `${name(path)}: ${INVALID_TEXT}`);
      continue;
    }
    if (typeof item !== 'object' || item === null) continue;
    if (path.length >= MAX_INPUT_DEPTH)
      throw new AppError('VALIDATION_FAILED', `${name(path)}: nested deeper than ${MAX_INPUT_DEPTH} levels`);
    for (const [key, child] of Object.entries(item)) {
      if (UNSTORABLE.test(key))
        throw new AppError('VALIDATION_FAILED', `${name(path)}: a key ${INVALID_TEXT}`);
      stack.push({ value: child, path: [...path, Array.isArray(item) ? Number(key) : key] });
    }
  }
}

/** Parses input with a zod schema, throwing a 400 AppError that names the field and the rule. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new AppError('VALIDATION_FAILED', describeIssues(result.error.issues));
  return result.data;
}

/** Parses configuration (an app's environment) with a zod schema, listing every problem at once. */
export function parseConfig<S extends z.ZodType>(
  schema: S,
  source: Record<string, string | undefined>,
  label: string,
): z.infer<S> {
  const result = schema.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues
      .map((issue) => `  ${formatPath(issue.path)}: ${issue.message}`)
      .join('\n');
    throw new Error(`Invalid ${label} configuration:\n${problems}`);
  }
  return result.data;
}
