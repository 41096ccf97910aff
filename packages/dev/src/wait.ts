/**
 * Polls `check` until it returns something other than false, null or undefined, and returns that.
 * Every wait in these suites is bounded: on timeout the error names what was awaited, the last error
 * the check threw and whatever `detail` adds (typically the processes' output).
 */
export async function waitFor<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | false | null | undefined>,
  { intervalMs = 100, detail }: { intervalMs?: number; detail?: () => string } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== false && value !== null && value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause = lastError === undefined ? '' : `\nlast error: ${String(lastError)}`;
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${cause}${detail ? `\n${detail()}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** `promise`, or a failure naming `what` once `timeoutMs` has passed. */
export async function within<T>(
  what: string,
  promise: Promise<T>,
  { timeoutMs, detail }: { timeoutMs: number; detail?: () => string },
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail ? `\n${detail()}` : ''}`),
        ),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
