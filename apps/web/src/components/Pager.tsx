/** Keyset paging as the API does it: the next page starts after the last id of this one. */
export function Pager({
  total,
  shown,
  pageIndex,
  hasNext,
  onPrevious,
  onNext,
  what,
}: {
  /** Omitted where the api gives no total. */
  total?: number;
  shown: number;
  pageIndex: number;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
  what: string;
}) {
  return (
    <nav className="pager" aria-label={`${what} pages`}>
      <span aria-live="polite">
        {total === undefined
          ? `Page ${pageIndex + 1} (${shown} shown)`
          : `${total.toLocaleString()} ${what} · page ${pageIndex + 1} (${shown} shown)`}
      </span>
      <button type="button" className="secondary" onClick={onPrevious} disabled={pageIndex === 0}>
        Previous
      </button>
      <button type="button" className="secondary" onClick={onNext} disabled={!hasNext}>
        Next
      </button>
    </nav>
  );
}

/** The pagination keys of the pages seen so far; page 0 has none. */
export function nextKeys(keys: (string | undefined)[], lastId: string | undefined) {
  return lastId ? [...keys, lastId] : keys;
}
