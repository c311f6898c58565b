import { loadavg } from 'node:os';
import { median } from './bench-util.js';

/**
 * What one timed run returns: a bare number (seconds, or a rate) or that
 * number as `value` with whatever else the run wants kept beside it.
 */
export type Measured = number | { value: number; detail?: unknown };

/** One run of either side, in the order it ran. */
export interface PairedRun {
  side: 'ours' | 'reference';
  value: number;
  detail?: unknown;
  /** One-minute load average when the run started and when it ended. */
  loadBefore: number;
  loadAfter: number;
}

/** Two runs next to each other in the sequence and their ratio (above 1: ours is better). */
export interface Pair {
  ours: number;
  reference: number;
  ratio: number;
}

export interface PairedResult {
  /** `lower`: values are times; `higher`: values are rates. */
  better: 'lower' | 'higher';
  runs: PairedRun[];
  /** Every adjacent pair: (A1,B1), (B1,A2), (A2,B2), ... so drift counts both ways. */
  pairs: Pair[];
  /** Median of the pairs' ratios. */
  ratio: number;
  /** Smallest and largest ratio of a pair. */
  spread: { min: number; max: number };
  /** Median of each side's own values, for the table. */
  ours: number;
  reference: number;
  /** One-minute load average before the first run and after the last. */
  load: { before: number; after: number };
}

export interface PairedOptions {
  /** Default `lower` (the values are times). */
  better?: 'lower' | 'higher';
  /** Called after each run, for progress lines. */
  onRun?: (run: PairedRun, index: number) => void;
}

const load1 = (): number => loadavg()[0] ?? Number.NaN;

function split(m: Measured): { value: number; detail?: unknown } {
  return typeof m === 'number' ? { value: m } : m;
}

/**
 * Runs `ours` and `reference` alternately, A, B, A, B, ..., `n` times each
 * (at least 3), and rates ours against every adjacent pair. On a machine
 * whose load changes from minute to minute, a ratio of two runs made side
 * by side holds where the ratio of two medians taken minutes apart does
 * not. Each run must set up its own fresh state (workspace, knowledge base,
 * queue) so that no run profits from an earlier one.
 */
export async function pairedRuns(
  ours: () => Promise<Measured>,
  reference: () => Promise<Measured>,
  n: number,
  opts: PairedOptions = {},
): Promise<PairedResult> {
  const better = opts.better ?? 'lower';
  const count = Math.max(3, Math.floor(n));
  const runs: PairedRun[] = [];
  const loadStart = load1();
  for (let i = 0; i < count * 2; i++) {
    const side = i % 2 === 0 ? 'ours' : 'reference';
    const loadBefore = load1();
    const measured = split(await (side === 'ours' ? ours() : reference()));
    const run: PairedRun = { side, ...measured, loadBefore, loadAfter: load1() };
    runs.push(run);
    opts.onRun?.(run, i);
  }
  return summarise(runs, better, { before: loadStart, after: load1() });
}

/** The pairs, ratios and medians of runs already made (exported for tests and for sections that run their own loop). */
export function summarise(runs: PairedRun[], better: 'lower' | 'higher', load: { before: number; after: number }): PairedResult {
  const pairs: Pair[] = [];
  for (let i = 1; i < runs.length; i++) {
    const a = runs[i - 1]!;
    const b = runs[i]!;
    if (a.side === b.side) continue;
    const [o, r] = a.side === 'ours' ? [a.value, b.value] : [b.value, a.value];
    pairs.push({ ours: o, reference: r, ratio: better === 'lower' ? r / o : o / r });
  }
  const ratios = pairs.map((p) => p.ratio);
  const side = (s: PairedRun['side']): number => median(runs.filter((r) => r.side === s).map((r) => r.value));
  return {
    better,
    runs,
    pairs,
    ratio: median(ratios),
    spread: { min: Math.min(...ratios), max: Math.max(...ratios) },
    ours: side('ours'),
    reference: side('reference'),
    load,
  };
}

/** `0.62 (0.55 to 0.70, 5 pairs)`: a paired ratio as the table shows it. */
export function formatPaired(p: Pick<PairedResult, 'ratio' | 'spread' | 'pairs'>): string {
  const f = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
  return `${f(p.ratio)} (${f(p.spread.min)} to ${f(p.spread.max)}, ${p.pairs.length} pairs)`;
}
