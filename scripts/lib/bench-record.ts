import { readFileSync, writeFileSync } from 'node:fs';
import type { Row } from './bench-table.js';

/** The history of benchmark runs that docs/performance.md no longer keeps. */
export const BENCH_HISTORY = 'scripts/bench-rounds.json';

/** One run as the history keeps it. */
export interface RecordedRun {
  kind: 'bench';
  date: string;
  command: string;
  machine: unknown;
  columns: (keyof Row)[];
  rows: Row[];
}

/**
 * Appends a run of `npm run bench` (its table rows, the machine and its load)
 * to the history file at `path`; a bare ratio is kept to three digits.
 */
export function recordRun(path: string, run: { date: Date; args: readonly string[]; machine: unknown; rows: Row[] }): RecordedRun {
  const history = JSON.parse(readFileSync(path, 'utf8')) as { rounds?: unknown };
  if (!Array.isArray(history.rounds)) throw new Error(`${path} holds no "rounds" list`);
  const entry: RecordedRun = {
    kind: 'bench',
    date: run.date.toISOString(),
    command: `npm run bench -- ${run.args.join(' ')}`.trim(),
    machine: run.machine,
    columns: ['measurement', 'result', 'reference', 'referenceResult', 'ratio', 'target'],
    rows: run.rows.map((r) => ({ ...r, ratio: typeof r.ratio === 'number' ? Number(r.ratio.toFixed(3)) : r.ratio })),
  };
  history.rounds.push(entry);
  writeFileSync(path, `${JSON.stringify(history, null, 1)}\n`);
  return entry;
}
