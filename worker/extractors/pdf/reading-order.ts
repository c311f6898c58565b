import type { Gutter } from './columns.js';
import { dominant, type Fragment } from './fragments.js';
import type { PdfLine } from './lines.js';
import { joinRuns, type Run } from './runs.js';

/**
 * Top to bottom; between two fragments that cross a gutter, column after
 * column. Fragments of one row and one column become one line.
 */
export function readingOrder(fragments: Fragment[], gutters: Gutter[], firstBlock: number): PdfLine[] {
  const column = (f: Fragment): number => {
    if (gutters.some((g) => f.x0 < g.start && f.x1 > g.end)) return -1;
    return gutters.filter((g) => f.x0 >= g.end - 1).length;
  };
  const lines: PdfLine[] = [];
  let block = firstBlock;
  let band: Fragment[][] = gutters.map(() => []).concat([[]]);
  const flushBand = () => {
    for (const col of band) {
      if (col.length === 0) continue;
      lines.push(...toLines(col, block));
      block++;
    }
    band = band.map(() => []);
  };
  // Fragments come row by row, top first.
  for (let i = 0; i < fragments.length;) {
    const row = fragments[i]!.row;
    const inRow: Fragment[] = [];
    while (i < fragments.length && fragments[i]!.row === row) inRow.push(fragments[i++]!);
    const spanning = inRow.filter((f) => column(f) < 0);
    if (spanning.length) {
      flushBand();
      lines.push(...toLines(inRow, block));
      continue;
    }
    for (const f of inRow) band[column(f)]!.push(f);
  }
  flushBand();
  return lines;
}

/** Fragments (top to bottom) to lines: those of one row join. */
function toLines(fragments: Fragment[], block: number): PdfLine[] {
  const lines: PdfLine[] = [];
  for (let i = 0; i < fragments.length;) {
    const row = fragments[i]!.row;
    const runs: Run[] = [];
    const pieces: Fragment[] = [];
    while (i < fragments.length && fragments[i]!.row === row) {
      runs.push(...fragments[i]!.runs);
      pieces.push(fragments[i++]!);
    }
    const text = joinRuns(runs);
    if (text === '') continue;
    const main = dominant(runs);
    lines.push({ text, x0: runs[0]!.x0, x1: Math.max(...runs.map((r) => r.x1)), y: main.y, size: main.size, block, cells: pieces.length,
      ...(pieces.length > 1 ? { parts: pieces.map((f) => joinRuns(f.runs)).filter(Boolean) } : {}) });
  }
  return lines;
}
