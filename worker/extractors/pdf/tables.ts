import { hasLeader } from './leaders.js';
import type { PdfLine } from './lines.js';

/**
 * Tables rebuilt from column-aligned text: consecutive lines of one block,
 * each cut into pieces by wide gaps, whose pieces start at a few shared
 * positions. Each becomes a GFM table, its first row the header row.
 */

/** A page's lines in order: runs of text lines, and tables as rows of cells. */
export type PageSegment = { kind: 'lines'; lines: PdfLine[] } | { kind: 'table'; y: number; rows: string[][] };

// A table has at least this many rows of two cells or more.
const MIN_ROWS = 2;
// Cell starts this close (in em) are one column; right-aligned figures move by a digit or two.
const COLUMN_EM = 1.5;
// A column whose cells are mostly this long is running text.
const PROSE_CHARS = 25;
// Rows of one table are no further apart than this many times their font size.
const ROW_GAP = 3;

/** Cuts a page's lines into text and tables. */
export function splitTables(lines: PdfLine[]): PageSegment[] {
  const segments: PageSegment[] = [];
  let text: PdfLine[] = [];
  for (let i = 0; i < lines.length;) {
    const table = tableAt(lines, i);
    if (!table) {
      text.push(lines[i++]!);
      continue;
    }
    if (text.length) segments.push({ kind: 'lines', lines: text });
    text = [];
    segments.push({ kind: 'table', y: lines[i]!.y, rows: table.rows });
    i = table.end;
  }
  if (text.length) segments.push({ kind: 'lines', lines: text });
  return segments;
}

/** The table that starts at `lines[start]`, if one does: its rows and the index after its last line. */
function tableAt(lines: PdfLine[], start: number): { rows: string[][]; end: number } | undefined {
  const first = lines[start]!;
  if (!isRow(first)) return undefined;
  let end = start + 1;
  while (end < lines.length && isRow(lines[end]!) && lines[end]!.block === first.block
    && lines[end - 1]!.y - lines[end]!.y <= ROW_GAP * lines[end]!.size) end++;
  // A row whose cells do not fall into the columns of those above ends the table there.
  while (end - start >= MIN_ROWS) {
    const rows = lines.slice(start, end);
    const columns = columnStarts(rows);
    const grid = rows.map((row) => place(row, columns));
    const bad = grid.findIndex((cells) => cells === undefined);
    if (bad < 0) {
      const table = mergeColumns(grid as string[][]);
      return table[0]!.length >= 2 && !prose(table) ? { rows: table, end } : undefined;
    }
    end = start + bad;
  }
  return undefined;
}

// An entry of a table of contents is a line with its dot leaders, not a row.
const isRow = (line: PdfLine): boolean => !line.heading && (line.parts?.length ?? 0) >= 2 && line.partsX?.length === line.parts?.length && !hasLeader(line.text);

/** Where the columns start: the cells' starts, those within {@link COLUMN_EM} of each other taken as one. */
function columnStarts(rows: PdfLine[]): number[] {
  const em = rows[0]!.size;
  const xs = rows.flatMap((r) => r.partsX!).sort((a, b) => a - b);
  const starts: number[] = [];
  for (const x of xs) if (starts.length === 0 || x - starts.at(-1)! > COLUMN_EM * em) starts.push(x);
  return starts;
}

/** The row's cells, one per column (empty where it has none); undefined when two cells fall into one column. */
function place(row: PdfLine, columns: number[]): string[] | undefined {
  const em = row.size;
  const cells = columns.map(() => '');
  for (const [i, x] of row.partsX!.entries()) {
    const column = columns.findLastIndex((c) => c <= x + COLUMN_EM * em);
    if (column < 0 || cells[column] !== '') return undefined;
    cells[column] = row.parts![i]!;
  }
  return cells;
}

/** Joins neighbouring columns that no row fills both of (cells set flush right, or shifted by a sign). */
function mergeColumns(rows: string[][]): string[][] {
  let merged = rows;
  for (let c = merged[0]!.length - 2; c >= 0; c--) {
    if (merged.some((r) => r[c] !== '' && r[c + 1] !== '')) continue;
    merged = merged.map((r) => [...r.slice(0, c), r[c] || r[c + 1]!, ...r.slice(c + 2)]);
  }
  return merged;
}

/**
 * Two columns of running text side by side (columns the page's gutters did
 * not part): more than one column whose cells are mostly as long as lines of prose.
 */
function prose(rows: string[][]): boolean {
  const long = rows[0]!.filter((_, c) => {
    const lengths = rows.map((r) => r[c]!.length).filter((n) => n > 0).sort((a, b) => a - b);
    return (lengths[lengths.length >> 1] ?? 0) >= PROSE_CHARS;
  });
  return long.length >= 2;
}

/** GFM: the first row as header, pipes and tag-like `<` escaped. */
export function renderTable(rows: string[][]): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/<(?=[\p{L}/!?])/gu, '\\<');
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(rows[0]!), line(rows[0]!.map(() => '---')), ...rows.slice(1).map(line)].join('\n');
}
