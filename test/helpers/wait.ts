/**
 * The one way tests wait: poll an observable state until `probe` returns a
 * value (anything but `undefined` or `false`), backing off from 10 ms to
 * 250 ms between polls. Past `timeoutMs` the test fails, saying what it
 * waited for and what it saw last; it never returns quietly.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  opts: { timeoutMs?: number; describe?: () => string | Promise<string> } = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const deadline = Date.now() + timeoutMs;
  let pause = 10;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) {
      const seen = opts.describe ? ` (last seen: ${await opts.describe()})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${seen}`);
    }
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(pause * 2, 250);
  }
}
