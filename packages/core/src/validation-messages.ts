import type { z } from 'zod';

/** The API's wording of a validation problem (zod only, so the dashboard words its forms' problems alike). */

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
