import type { z } from 'zod';
import { AppError } from './errors';

/** `webhooks[2].url` from a zod issue path. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === 'number') return `${out}[${key}]`;
    const name = String(key);
    return out ? `${out}.${name}` : name;
  }, '');
}

/** One readable sentence for the first problem, naming the field and the rule. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const issue = issues[0];
  if (!issue) return 'Invalid request';
  const field = formatPath(issue.path);
  // zod does not keep the input on issues; a missing value reads "received undefined".
  if (issue.code === 'invalid_type' && issue.message.endsWith('received undefined'))
    return `${field || 'body'} is required`;
  if (issue.code === 'unrecognized_keys') return `${issue.message}${field ? ` in ${field}` : ''}`;
  return field ? `${field}: ${issue.message}` : issue.message;
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
