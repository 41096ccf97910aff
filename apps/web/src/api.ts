import {
  createTRPCClient,
  httpBatchLink,
  httpSubscriptionLink,
  splitLink,
  TRPCClientError,
} from '@trpc/client';
import { describeIssues } from '@voice/core/schemas';
import type { AppRouter } from '@voice/trpc';
import type { inferRouterOutputs } from '@trpc/server';

export type Outputs = inferRouterOutputs<AppRouter>;

/**
 * The CSRF token of the signed-in session, held in memory only: the api returns it with the session,
 * and every mutation sends it back. The session itself is an HttpOnly cookie the page never sees.
 */
let csrfToken = '';
export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/**
 * A REST download the dashboard's session may make (a CSV export): POSTed with the session cookie and
 * its CSRF token, saved under `filename`. Throws the API's message when it refuses.
 */
export async function download(path: string, body: unknown, filename: string): Promise<void> {
  const response = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    const refusal = (await response.json().catch(() => null)) as { error?: string } | null;
    throw new Error(refusal?.error ?? `The download failed (${response.status})`);
  }
  saveFile(await response.blob(), filename);
}

/** Hands the browser a file to save under `filename`. */
export function saveFile(file: Blob, filename: string): void {
  const url = URL.createObjectURL(file);
  const link = Object.assign(document.createElement('a'), { href: url, download: filename });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * The typed tRPC client, same origin, authenticated by the session cookie: queries and mutations in
 * batches, subscriptions (a campaign's live progress) as server-sent events.
 */
export const api = createTRPCClient<AppRouter>({
  links: [
    splitLink({
      condition: (op) => op.type === 'subscription',
      true: httpSubscriptionLink({ url: '/trpc' }),
      false: httpBatchLink({
        url: '/trpc',
        // A batch too long for one URL is split (a filtered list's input is long).
        maxURLLength: 4000,
        headers: () => (csrfToken ? { 'x-csrf-token': csrfToken } : {}),
        fetch: (url, init) => fetch(url, { ...init, credentials: 'same-origin' }),
      }),
    }),
  ],
});

export function errorStatus(error: unknown): number | undefined {
  if (!(error instanceof TRPCClientError)) return undefined;
  const data = error.data as { httpStatus?: number } | undefined;
  return data?.httpStatus;
}

/** The api's message for an error, as it would show it to any client. */
export function errorMessage(error: unknown): string {
  if (error instanceof TRPCClientError) return error.message;
  if (error instanceof Error) return error.message;
  return 'Something went wrong';
}

/**
 * The part of an error that belongs beside a form field: the api names the field first
 * (`email: email must be an email address`, `webhooks[2].url must use https`).
 */
export function fieldError(error: unknown, field: string): string | undefined {
  if (!error) return undefined;
  const message = errorMessage(error);
  if (message.startsWith(`${field}: `)) return message.slice(field.length + 2);
  const next = message.charAt(field.length);
  return message.startsWith(field) && [' ', '.', '['].includes(next) ? message : undefined;
}

/** A form's own check failed (the API's schema, run here): its first problem, worded as the API words it. */
export function invalidInput(issues: Parameters<typeof describeIssues>[0]): Error {
  return new Error(describeIssues(issues));
}

/** The api answered that the thing asked for does not exist (or is another account's). */
export function isNotFound(error: unknown): boolean {
  if (!(error instanceof TRPCClientError)) return false;
  const data = error.data as { httpStatus?: number; code?: string } | undefined;
  return data?.httpStatus === 404 || data?.code === 'NOT_FOUND';
}
