import type { Run } from './runs.js';

/** Pieces of rows: runs grouped by baseline and split at gaps wide enough to be gutters or table cell breaks. */

/** Runs of one row between two wide gaps. */
export interface Fragment {
  runs: Run[];
  row: number;
  x0: number;
  x1: number;
  y: number;
  size: number;
}

// A gap wider than this splits a row into fragments, so that column gutters show.
const FRAGMENT_GAP = 1.0;
// A section number is set a quad or so before its title ("1.2␣␣Programs needed"): one fragment up to this gap.
const NUMBER_GAP = 2.0;
// "1.2", "A.3", "2.1.4.": a section number with at least two parts.
const SECTION_NUMBER = /^(?:\d{1,3}|[A-Z])(?:\.\d{1,3}){1,5}\.?$/;

/** Groups runs into rows by vertical overlap, then splits each row at wide gaps. */
export function toFragments(runs: Run[]): Fragment[] {
  runs.sort((p, q) => q.y - p.y || p.x0 - q.x0);
  const rows: Run[][] = [];
  let ref: Run | undefined;
  for (const run of runs) {
    if (ref && sameRow(ref, run)) {
      rows.at(-1)!.push(run);
      if (run.size > ref.size) ref = run;
    } else {
      rows.push([run]);
      ref = run;
    }
  }
  const fragments: Fragment[] = [];
  rows.forEach((row, index) => {
    row.sort((p, q) => p.x0 - q.x0);
    let current: Run[] = [];
    for (const run of row) {
      const last = current.at(-1);
      const gap = last ? run.x0 - last.x1 : 0;
      const em = Math.max(last?.size ?? 0, run.size);
      if (last && gap > FRAGMENT_GAP * em && !(gap < NUMBER_GAP * em && numbersTitle(current, run))) {
        fragments.push(fragment(current, index));
        current = [];
      }
      current.push(run);
    }
    if (current.length) fragments.push(fragment(current, index));
  });
  return fragments;
}

/** Whether `runs` hold only a section number and `next` starts a word after it. */
function numbersTitle(runs: Run[], next: Run): boolean {
  return runs.length === 1 && SECTION_NUMBER.test(runs[0]!.str.trim()) && /^\p{L}/u.test(next.str);
}

/** Two runs share a row when their spans from descender to ascender overlap by half the smaller one. */
function sameRow(p: Run, q: Run): boolean {
  const low = Math.max(p.y - 0.2 * p.size, q.y - 0.2 * q.size);
  const high = Math.min(p.y + 0.8 * p.size, q.y + 0.8 * q.size);
  return high - low > 0.5 * Math.min(p.size, q.size);
}

function fragment(runs: Run[], row: number): Fragment {
  const main = dominant(runs);
  return { runs, row, x0: Math.min(...runs.map((r) => r.x0)), x1: Math.max(...runs.map((r) => r.x1)), y: main.y, size: main.size };
}

/** The run whose font size carries most characters (ties: the first). */
export function dominant(runs: Run[]): Run {
  const first = runs[0]!;
  if (runs.every((r) => round(r.size) === round(first.size))) return first;
  const weight = new Map<number, number>();
  for (const r of runs) weight.set(round(r.size), (weight.get(round(r.size)) ?? 0) + r.str.length);
  const size = [...weight.entries()].sort((p, q) => q[1] - p[1])[0]![0];
  return runs.find((r) => round(r.size) === size)!;
}

const round = (n: number) => Math.round(n * 2) / 2;
