import { asArray, textOf, type XmlNode } from '../office/office-package.js';
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
 * right cannot make every row that wide.
 */
export function sheetRows(worksheet: XmlNode | undefined, ctx: WorkbookContext, maxColumns: number): string[][] {
  const ws = (worksheet?.worksheet ?? {}) as XmlNode;
  const grid = new Map<number, Map<number, string>>();
  let nextRow = 0;
  for (const row of asArray((ws.sheetData as XmlNode | undefined)?.row)) {
    const r = row['@r'] ? Number(row['@r']) - 1 : nextRow;
    nextRow = r + 1;
    let nextCol = 0;
    for (const c of asArray(row.c)) {
      const col = c['@r'] ? columnIndex(String(c['@r'])) : nextCol;
      nextCol = col + 1;
      const value = cellValue(c, ctx);
      if (value !== '' && col <= maxColumns) put(grid, r, col, value);
    }
  }
  repeatMerged(grid, asArray((ws.mergeCells as XmlNode | undefined)?.mergeCell), maxColumns);

  let minCol = Infinity;
  let maxCol = -1;
  for (const cells of grid.values()) for (const col of cells.keys()) [minCol, maxCol] = [Math.min(minCol, col), Math.max(maxCol, col)];
  return [...grid.keys()].sort((a, b) => a - b).map((r) => {
    const cells = grid.get(r)!;
    return Array.from({ length: maxCol - minCol + 1 }, (_, i) => cells.get(minCol + i) ?? '');
  });
}

function cellValue(c: XmlNode, ctx: WorkbookContext): string {
  const type = c['@t'];
  if (type === 'inlineStr') return richText(c.is as XmlNode | undefined);
  const v = textOf(c.v);
  if (v === '') return '';
  switch (type) {
    case 's': return ctx.sharedStrings[Number(v)] ?? '';
    case 'b': return v === '1' || v === 'true' ? 'TRUE' : 'FALSE';
    case 'str': case 'e': case 'd': return v;
    default: {
      const n = Number(v);
      if (!Number.isFinite(n)) return v;
      return formatNumber(n, ctx.styleFormats[Number(c['@s'] ?? 0)] ?? 'General', ctx.date1904);
    }
  }
}

function repeatMerged(grid: Map<number, Map<number, string>>, merges: XmlNode[], maxColumns: number): void {
  for (const m of merges) {
    const [from, to] = String(m['@ref'] ?? '').split(':');
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
