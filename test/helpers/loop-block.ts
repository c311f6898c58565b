/** What {@link withLoopProbe} measured. */
export interface LoopProbe<T> {
  value: T;
  /**
   * The longest the event loop was held: per gap between two probes, the gap
   * past the probe period, but no more than the process's CPU time in it, so
   * that time the machine gave to other processes (a loaded test machine)
   * does not count as a block, while work that held the loop does.
   */
  worstBlockMs: number;
  /** The widest gap between two probes, as the wall clock saw it. */
  worstGapMs: number;
  elapsedMs: number;
}

/** Runs `work` while a timer probes the event loop every 2 ms; see {@link LoopProbe}. */
export async function withLoopProbe<T>(work: () => Promise<T>): Promise<LoopProbe<T>> {
  const periodMs = 2;
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let worstBlock = 0;
  let worstGap = 0;
  const sample = (): void => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    const gap = now - last - periodMs;
    worstGap = Math.max(worstGap, gap);
    worstBlock = Math.max(worstBlock, Math.min(gap, (cpu.user + cpu.system) / 1000));
    last = now;
    lastCpu = process.cpuUsage();
  };
  const probe = setInterval(sample, periodMs);
  const began = performance.now();
  try {
    const value = await work();
    const elapsedMs = performance.now() - began;
    sample(); // the tail since the last probe counts too
    return { value, worstBlockMs: Math.max(0, worstBlock), worstGapMs: Math.max(0, worstGap), elapsedMs };
  } finally {
    clearInterval(probe);
  }
}

/** Like {@link withLoopProbe} for work that is expected to fail: `value` is what it threw. */
export async function failureWithLoopProbe(work: () => Promise<unknown>): Promise<LoopProbe<unknown> & { error: unknown }> {
  const r = await withLoopProbe(async () => {
    try {
      await work();
    } catch (err) {
      return err;
    }
    return undefined;
  });
  return { ...r, error: r.value };
}
