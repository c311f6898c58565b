import type { XmlScanner } from '../office/xml-scan.js';
import { formatNumber } from './cell-format.js';
import { richText, type WorkbookContext } from './workbook-parts.js';

// A merge bigger than this is a layout trick, not a value meant in every cell: only its first cell keeps the value.
const MAX_MERGE_CELLS = 10_000;

/**
 * The displayed values of a worksheet's used range, one array per row, rows
 * with no value left out: cached formula results (never the formula),
 * shared and inline strings, booleans as TRUE/FALSE, numbers and dates as
 * their number format shows them. A merged range repeats its first cell's
 * value. At most `maxColumns + 1` columns are built, so a cell far to the
 * right cannot make every row that wide, and reading stops once `maxRows + 1`
 * rows hold values (the caller's cap then cuts, knowing more were there).
 * The sheet XML is read tag by tag, never built into objects: a sheet of a
 * few hundred thousand cells costs its grid of strings and little more.
 */
export function sheetRows(sheet: XmlScanner | undefined, ctx: WorkbookContext, maxColumns: number, maxRows = Infinity): string[][] {
  const grid = new Map<number, Map<number, string>>();
  const merges: string[] = [];
  let row = 0;
  let nextRow = 0;
  let nextCol = 0;
  while (sheet?.next()) {
    if (sheet.closing) continue;
    if (sheet.name === 'row') {
      if (grid.size > maxRows) break;
      const r = sheet.attrs(ROW_ATTRS).r;
      row = r ? Number(r) - 1 : nextRow;
      nextRow = row + 1;
      nextCol = 0;
    } else if (sheet.name === 'c') {
      const a = sheet.attrs(CELL_ATTRS);
      const col = a.r ? columnIndex(a.r) : nextCol;
      nextCol = col + 1;
      if (sheet.empty) continue;
      const value = cellValue(sheet, a, ctx);
      if (value !== '' && col <= maxColumns) put(grid, row, col, value);
    } else if (sheet.name === 'mergeCell') {
      const ref = sheet.attrs(MERGE_ATTRS).ref;
      if (ref) merges.push(ref);
    }
  }
  repeatMerged(grid, merges, maxColumns);

  let minCol = Infinity;
  let maxCol = -1;
  for (const cells of grid.values()) for (const col of cells.keys()) [minCol, maxCol] = [Math.min(minCol, col), Math.max(maxCol, col)];
  return [...grid.keys()].sort((a, b) => a - b).map((r) => {
    const cells = grid.get(r)!;
    return Array.from({ length: maxCol - minCol + 1 }, (_, i) => cells.get(minCol + i) ?? '');
  });
}

const ROW_ATTRS = ['r'] as const;
const CELL_ATTRS = ['r', 's', 't'] as const;
const MERGE_ATTRS = ['ref'] as const;

/** Reads a `<c>` element to its end: its cached value (`v`) or inline string (`is`), shown as the sheet shows it; a formula (`f`) is passed over. */
function cellValue(sheet: XmlScanner, a: Partial<Record<'s' | 't', string>>, ctx: WorkbookContext): string {
  let v = '';
  let inline = '';
  while (sheet.next()) {
    if (sheet.name === 'c' && sheet.closing) break;
    if (sheet.closing || sheet.empty) continue;
    if (sheet.name === 'v') v = sheet.text();
    else if (sheet.name === 'is') inline = richText(sheet);
  }
  if (a.t === 'inlineStr') return inline;
  if (v === '') return '';
  switch (a.t) {
    case 's': return ctx.sharedStrings[Number(v)] ?? '';
    case 'b': return v === '1' || v === 'true' ? 'TRUE' : 'FALSE';
    case 'str': case 'e': case 'd': return v;
    default: {
      const n = Number(v);
      if (!Number.isFinite(n)) return v;
      return formatNumber(n, ctx.styleFormats[Number(a.s ?? 0)] ?? 'General', ctx.date1904);
    }
  }
}

function repeatMerged(grid: Map<number, Map<number, string>>, merges: readonly string[], maxColumns: number): void {
  for (const ref of merges) {
    const [from, to] = ref.split(':');
    if (!from || !to) continue;
    const [r0, c0, r1, c1] = [rowIndex(from), columnIndex(from), rowIndex(to), Math.min(columnIndex(to), maxColumns)];
    const value = grid.get(r0)?.get(c0);
    if (value === undefined || (r1 - r0 + 1) * (c1 - c0 + 1) > MAX_MERGE_CELLS) continue;
    for (let r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++) put(grid, r, c, value);
  }
}

function put(grid: Map<number, Map<number, string>>, r: number, c: number, value: string): void {
  let row = grid.get(r);
  if (!row) grid.set(r, (row = new Map()));
  row.set(c, value);
}

/** `AB12` → 27 (zero-based). */
export function columnIndex(ref: string): number {
  let n = 0;
  for (const ch of ref.toUpperCase()) {
    const code = ch.charCodeAt(0);
    if (code < 65 || code > 90) break;
    n = n * 26 + (code - 64);
  }
  return n - 1;
}

function rowIndex(ref: string): number {
  return Number(/\d+/.exec(ref)?.[0] ?? 1) - 1;
}
