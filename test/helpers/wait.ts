/** A probe still running this long past the deadline is given up. */
const PROBE_GRACE_MS = 1_000;
/** How long the `describe` of a timed-out wait may take. */
const DESCRIBE_MS = 2_000;
const HUNG = Symbol('hung');

/** `work`'s value, or `fallback` once `ms` pass (the timer does not hold the process). */
function bounded<T, F>(work: Promise<T> | T, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
    timer.unref();
  });
  return Promise.race([Promise.resolve(work), late]).finally(() => clearTimeout(timer));
}

/**
 * The one way tests wait: poll an observable state until `probe` returns a
 * value (anything but `undefined` or `false`), backing off from 10 ms to
 * 250 ms between polls. Past `timeoutMs` the test fails, saying what it
 * waited for and what it saw last; it never returns quietly. A probe that
 * never settles (a command on a connection that hangs) is given up at the
 * deadline too, so no wait here is unbounded.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  opts: { timeoutMs?: number; describe?: () => string | Promise<string> } = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const deadline = Date.now() + timeoutMs;
  let pause = 10;
  const expired = async (): Promise<never> => {
    const seen = opts.describe ? ` (last seen: ${await bounded(opts.describe(), DESCRIBE_MS, 'its description did not answer')})` : '';
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${seen}`);
  };
  for (;;) {
    const left = Math.max(deadline - Date.now(), 0) + PROBE_GRACE_MS;
    const value = await bounded(probe(), left, HUNG);
    if (value === HUNG) return expired();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) return expired();
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(pause * 2, 250);
  }
}
