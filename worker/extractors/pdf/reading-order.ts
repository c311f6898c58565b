import { findGutters, type Gutter } from './columns.js';
import { dominant, type Fragment } from './fragments.js';
import type { PdfLine } from './pdf-line.js';
import { joinRuns, type Run } from './runs.js';

// Regions are cut this many times at most, however the page is drawn.
const MAX_DEPTH = 8;

/**
 * Reads a region of a page (first the whole page) as an X-Y cut does: where
 * gutters run clear through it, with no fragment crossing them, each slab
 * between them is a region of its own, read in turn and cut again with its
 * own gutters (three columns of two-column tables on a reference card).
 * Before that, a region whose upper and lower parts have columns of their
 * own (three columns of a card over two of another width) is cut between
 * them, each part read in turn ({@link splitByColumns}).
 * Elsewhere the region is read by {@link readingOrder} with the gutters
 * found in it.
 */
export function readRegion(fragments: Fragment[], firstBlock: number, depth = 0): PdfLine[] {
  const { gutters, clear: allClear } = columnGutters(fragments);
  const clear = depth < MAX_DEPTH ? allClear : [];
  const parts = depth < MAX_DEPTH ? splitByColumns(fragments) : undefined;
  if (parts) {
    const upper = readRegion(parts[0], firstBlock, depth + 1);
    return [...upper, ...readRegion(parts[1], (upper.at(-1)?.block ?? firstBlock) + 1, depth + 1)];
  }
  if (clear.length === 0) return readingOrder(fragments, gutters, firstBlock);
  const slabOf = (f: Fragment) => clear.filter((g) => f.x0 + f.x1 >= g.start + g.end).length;
  const top = fragments.filter((f) => f.row === fragments[0]!.row);
  if (standsApart(top, fragments.slice(top.length), slabOf)) {
    const first = readingOrder(top, [], firstBlock);
    return [...first, ...readRegion(fragments.slice(top.length), (first.at(-1)?.block ?? firstBlock) + 1, depth)];
  }
  const slabs: Fragment[][] = clear.map(() => []).concat([[]]);
  for (const f of fragments) slabs[slabOf(f)]!.push(f);
  const lines: PdfLine[] = [];
  let block = firstBlock;
  for (const slab of slabs) {
    if (slab.length === 0) continue;
    const read = readRegion(slab, block, depth + 1);
    lines.push(...read);
    block = (read.at(-1)?.block ?? block) + 1;
  }
  return lines;
}

/** The gutters of a region that part columns (not table cells), and those of them no fragment crosses. */
function columnGutters(fragments: Fragment[]): { gutters: Gutter[]; clear: Gutter[] } {
  const found = findGutters(fragments);
  const clearFound = found.map((g) => !crosses(fragments, g));
  // A gap between the cells of a table's rows is not a column gutter: its rows are read across,
  // unless it parts columns that each hold tables of their own (a card's boxes on one grid of baselines).
  const gutters = found.filter((g, i) => !betweenCells(fragments, found[i - 1]?.end ?? -Infinity, g, found[i + 1]?.start ?? Infinity)
    || (clearFound[i] && partsColumns(fragments, found, clearFound, i)));
  return { gutters, clear: gutters.filter((g) => !crosses(fragments, g)) };
}

const crosses = (fragments: Fragment[], g: Gutter): boolean => fragments.some((f) => f.x0 < g.start && f.x1 > g.end);

// Lines across a column's own cell gap (headings, notes) that tell a column from a table's cell; this many on each side.
const MIN_COLUMN_LINES = 2;

/**
 * Whether the clear gap `found[i]`, whose sides are set on shared baselines
 * like a table's cells, parts two columns instead: on each side, up to the
 * next gap no fragment crosses, the text is prose, or rows of two pieces
 * (a command and its description) with lines running across the gap between
 * those pieces (a box's bold title, a note): a reference card's boxes set on
 * one grid of baselines. A table's column keeps to one cell a row.
 */
function partsColumns(fragments: Fragment[], found: Gutter[], clearFound: boolean[], i: number): boolean {
  const g = found[i]!;
  let from = -Infinity;
  for (let k = i - 1; k >= 0; k--) if (clearFound[k]) { from = found[k]!.end; break; }
  let to = Infinity;
  for (let k = i + 1; k < found.length; k++) if (clearFound[k]) { to = found[k]!.start; break; }
  const em = median(fragments.map((f) => f.size));
  return ownColumn(fragments.filter((f) => f.x0 >= from - 1 && f.x1 <= g.start + 1), em)
    && ownColumn(fragments.filter((f) => f.x0 >= g.end - 1 && f.x1 <= to + 1), em);
}

/** Whether fragments (top to bottom) read as a column of their own: prose, or a table of two pieces a row with lines across its gap. */
function ownColumn(inside: Fragment[], em: number): boolean {
  if (inside.length === 0) return false;
  if (median(inside.map((f) => f.x1 - f.x0)) >= CELL_EM * em) return true;
  const ends: number[] = [];
  const starts: number[] = [];
  for (let k = 1; k < inside.length; k++) {
    if (inside[k]!.row !== inside[k - 1]!.row || (k > 1 && inside[k - 2]!.row === inside[k]!.row)) continue;
    ends.push(inside[k - 1]!.x1);
    starts.push(inside[k]!.x0);
  }
  if (ends.length < MIN_COLUMN_LINES) return false;
  const [gapStart, gapEnd] = [median(ends), median(starts)];
  if (!(gapEnd > gapStart)) return false;
  let across = 0;
  for (const f of inside) if (f.x0 < gapStart && f.x1 > gapEnd && ++across >= MIN_COLUMN_LINES) return true;
  return false;
}

// Rows further apart than this many times the usual spacing may end one part of a page and start another.
const PART_GAP = 1.4;
// At most this many such gaps are tried per region.
const MAX_PART_GAPS = 24;

/**
 * The upper and lower parts of a region, when a wide gap between two rows
 * parts text set in columns of its own above from columns of its own below:
 * each part has a gutter no fragment of its own crosses and the other part
 * sets text over. Columns that go on past the gap keep their gutters clear
 * on both sides, and a part with fewer gutters (a wide paragraph, a part
 * too small to show all its columns) runs over none of the other's gutters
 * on its own side: neither is cut.
 */
function splitByColumns(fragments: Fragment[]): [Fragment[], Fragment[]] | undefined {
  if (fragments.length < 20) return undefined;
  const rows: Array<{ start: number; y: number; low: number }> = [];
  fragments.forEach((f, i) => {
    const last = rows.at(-1);
    if (last && fragments[last.start]!.row === f.row) last.low = Math.min(last.low, f.y);
    else rows.push({ start: i, y: f.y, low: f.y });
  });
  const gaps = rows.slice(1).map((r, i) => rows[i]!.low - r.y);
  const usual = median(gaps.filter((g) => g > 0));
  let tried = 0;
  for (let i = 1; i < rows.length && tried < MAX_PART_GAPS; i++) {
    if (!(gaps[i - 1]! > PART_GAP * usual)) continue;
    const at = rows[i]!.start;
    if (at < 10 || fragments.length - at < 10) continue;
    tried++;
    const upper = fragments.slice(0, at);
    const lower = fragments.slice(at);
    // The lower part's gutters are looked for only when the upper part's are crossed below.
    if (columnGutters(upper).clear.some((g) => runsOver(lower, g)) && columnGutters(lower).clear.some((g) => runsOver(upper, g))) return [upper, lower];
  }
  return undefined;
}

// Fragments that cover most of a gutter: text of a part set where the other part has a gutter.
const OVER_GUTTER = 0.5;
const MIN_OVER = 2;

/** Whether at least two fragments cover most of the width of `gutter`. */
function runsOver(fragments: Fragment[], gutter: Gutter): boolean {
  const width = gutter.end - gutter.start;
  let n = 0;
  for (const f of fragments) if (Math.min(f.x1, gutter.end) - Math.max(f.x0, gutter.start) > OVER_GUTTER * width && ++n >= MIN_OVER) return true;
  return false;
}

// Most baselines beside a gap hold a fragment on both sides of it: a table.
const ALIGNED_ROWS = 0.6;
// Table cells are short; text columns are wider than this many em.
const CELL_EM = 8;

/**
 * Whether `gutter` parts the cells of a table rather than two columns of
 * text: most baselines with a fragment on either side of it (between the
 * gutters around it) have one on the other side too, and one side is narrow
 * (a key and its value; prose columns set on the same baselines are wide).
 */
function betweenCells(fragments: Fragment[], from: number, gutter: Gutter, to: number): boolean {
  const left = fragments.filter((f) => f.x0 >= from - 1 && f.x1 <= gutter.start + 1);
  const right = fragments.filter((f) => f.x0 >= gutter.end - 1 && f.x1 <= to + 1);
  if (left.length === 0 || right.length === 0) return false;
  const em = median(fragments.map((f) => f.size));
  // Baselines, not rows: lines of two columns half a line apart can share a row.
  const baselines = (side: Fragment[]) => new Set(side.map((f) => Math.round(f.y / (0.15 * em))));
  const leftRows = baselines(left);
  const rightRows = baselines(right);
  const shared = [...leftRows].filter((r) => rightRows.has(r)).length;
  if (shared < 2 || shared < ALIGNED_ROWS * Math.max(leftRows.size, rightRows.size)) return false;
  return Math.min(median(left.map((f) => f.x1 - f.x0)), median(right.map((f) => f.x1 - f.x0))) < CELL_EM * em;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

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
    if (spanning.length || (band.every((col) => col.length === 0) && standsApart(inRow, fragments.slice(i), column))) {
      flushBand();
      lines.push(...toLines(inRow, block));
      continue;
    }
    for (const f of inRow) band[column(f)]!.push(f);
  }
  flushBand();
  return lines;
}

// A row standing this many of its font sizes clear of the text under it in every column it has pieces in.
const APART_ROW_GAP = 2;

/**
 * Whether a row that starts a band has pieces in two or more columns and
 * stands apart from the text under it in each of them, like a row of
 * navigation buttons over a form or a header set across the page: it is
 * read as one line before the columns, not split between them. The first
 * rows of columns set on one baseline (a reference card's column titles)
 * are followed by their text at the usual spacing.
 */
function standsApart(row: Fragment[], below: Fragment[], column: (f: Fragment) => number): boolean {
  const columns = new Set(row.map(column));
  if (columns.size < 2) return false;
  const y = Math.min(...row.map((f) => f.y));
  const size = Math.max(...row.map((f) => f.size));
  return [...columns].every((c) => {
    const next = below.find((f) => column(f) === c || column(f) < 0);
    return !next || y - next.y >= APART_ROW_GAP * size;
  });
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
    const cells = pieces.length > 1 ? pieces.map((f) => ({ text: joinRuns(f.runs), x0: f.x0 })).filter((c) => c.text !== '') : [];
    lines.push({ text, x0: runs[0]!.x0, x1: Math.max(...runs.map((r) => r.x1)), y: main.y, size: main.size, block, cells: pieces.length, ...(mostlyBold(runs) ? { bold: true } : {}),
      ...(pieces.length > 1 ? { parts: cells.map((c) => c.text), partsX: cells.map((c) => c.x0) } : {}) });
  }
  return lines;
}

/** Whether bold runs carry most of the letters of a line. */
function mostlyBold(runs: Run[]): boolean {
  if (!runs.some((r) => r.bold)) return false;
  let bold = 0;
  let all = 0;
  for (const r of runs) {
    const n = r.str.replace(/[^\p{L}\p{N}]/gu, '').length;
    all += n;
    if (r.bold) bold += n;
  }
  return bold * 4 > all * 3;
}
