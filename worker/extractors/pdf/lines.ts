import { toFragments } from './fragments.js';
import { readRegion } from './reading-order.js';
import type { PdfLine } from './pdf-line.js';
import { COS, orientation, SIN, toRun, type PdfTextItem, type Run } from './runs.js';

export type { PdfLine } from './pdf-line.js';
export type { PdfTextItem } from './runs.js';

/**
 * Rebuilds the lines of one PDF page, in reading order, from the positions of
 * pdf.js text items: words from gaps (`runs.ts`), rows and their pieces from
 * baselines (`fragments.ts`), columns from the gutters no line crosses
 * (`columns.ts`, `reading-order.ts`).
 */

// Running headers and footers sit in this share of the page height from its top or bottom.
const EDGE_ZONE = 0.15;

/**
 * The lines of one page in reading order; text in other directions than the
 * main one follows it. `view` is the page box [x0, y0, x1, y1], which tells
 * the lines near its top and bottom edges.
 */
export function pageLines(items: PdfTextItem[], view?: number[]): PdfLine[] {
  const byOrientation = new Map<number, Run[]>();
  let last: Run | undefined;
  for (const item of items) {
    const run = toRun(item);
    if (!run) {
      // A space pdf.js read between two items (often where the font changes) stays a space.
      if (last && item.str !== '' && item.width > 0) last.str = last.str.replace(/ ?$/, ' ');
      last = undefined;
      continue;
    }
    last = run;
    const key = orientation(item);
    const list = byOrientation.get(key) ?? [];
    list.push(run);
    byOrientation.set(key, list);
  }
  const groups = [...byOrientation].sort((a, b) => chars(b[1]) - chars(a[1]));
  const lines: PdfLine[] = [];
  let block = 0;
  for (const [turn, runs] of groups) {
    const laid = layout(runs, block);
    if (view) markEdges(laid, view, turn);
    lines.push(...laid);
    block = (laid.at(-1)?.block ?? block) + 1;
  }
  return lines;
}

function markEdges(lines: PdfLine[], [x0 = 0, y0 = 0, x1 = 0, y1 = 0]: number[], turn: number): void {
  const across = [[x0, y0], [x0, y1], [x1, y0], [x1, y1]].map(([e, f]) => -e! * SIN[turn]! + f! * COS[turn]!);
  const low = Math.min(...across);
  const high = Math.max(...across);
  const zone = EDGE_ZONE * (high - low);
  for (const line of lines) line.nearEdge = line.y > high - zone || line.y < low + zone;
}

const chars = (runs: Run[]) => runs.reduce((n, r) => n + r.str.length, 0);

function layout(runs: Run[], firstBlock: number): PdfLine[] {
  const fragments = toFragments(runs);
  if (fragments.length === 0) return [];
  return readRegion(fragments, firstBlock);
}
