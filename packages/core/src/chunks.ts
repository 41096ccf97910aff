/** `items` in slices of at most `size`: large lists go to Postgres in statements of bounded size. */
export function* chunks<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}
