import { Worker } from 'node:worker_threads';

/**
 * A worker thread of the listening features (`*.worker.mjs` beside its module, shipped beside the
 * compiled bundle), resolved once it says it is ready (its first message), unref'd: an idle thread does
 * not keep the process up. It fails with `what` named when the thread fails or exits first.
 */
export async function startReadyThread(url: URL, what: string, workerData?: unknown): Promise<Worker> {
  const worker = new Worker(url, workerData === undefined ? {} : { workerData });
  let failed = (_: Error) => {};
  const exited = (code: number) => failed(new Error(`the ${what} thread exited (${code})`));
  try {
    await new Promise<void>((resolve, reject) => {
      failed = reject;
      worker
        .once('message', () => resolve())
        .once('error', failed)
        .once('exit', exited);
    });
  } catch (error) {
    await worker.terminate();
    throw error;
  } finally {
    // Only these: the worker's own listeners must stay.
    worker.off('error', failed).off('exit', exited);
  }
  worker.unref();
  return worker;
}
