/** The rejection of {@link withTimeout} when no `onTimeout` is given. */
export class TimeoutError extends Error {
  override name = 'TimeoutError';
  constructor(readonly ms: number) {
    super(`timed out after ${ms} ms`);
  }
}

/**
 * Settles as `work` does, unless `ms` pass first: then it resolves with
 * `onTimeout()`'s value, or rejects with a {@link TimeoutError} when there is
 * no `onTimeout` (or with what `onTimeout` throws). `work` itself is not
 * cancelled; it runs on, and its late outcome is ignored.
 *
 * The timer is unref'd, so a pending wait never keeps the process alive
 * (shutdown paths rely on that), and cleared as soon as `work` settles.
 */
export function withTimeout<T, U = never>(work: PromiseLike<T>, ms: number, onTimeout?: () => U): Promise<T | U> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<U>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        if (!onTimeout) throw new TimeoutError(ms);
        resolve(onTimeout());
      } catch (err) {
        reject(err);
      }
    }, ms);
    timer.unref();
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
