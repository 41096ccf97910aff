import { errorMessage, isNotFound } from '../api';
import { NotFoundPage } from '../pages/NotFound';

/** An error where it happened, announced: the api's message for a failed request, or a text. */
export function ErrorMessage({ error, id }: { error: unknown; id?: string }) {
  if (error === null || error === undefined || error === '') return null;
  return (
    <p id={id} role="alert" className="error">
      {typeof error === 'string' ? error : errorMessage(error)}
    </p>
  );
}

/**
 * What a page shows while its query has no data to show: not found for a 404 (a missing id, or another
 * account's), the api's error, or that it is loading.
 */
export function Pending({ query }: { query: { isError: boolean; error: unknown } }) {
  if (query.isError && isNotFound(query.error)) return <NotFoundPage />;
  if (query.isError) return <ErrorMessage error={query.error} />;
  return <p className="loading">Loading…</p>;
}
