import { escapeText } from '../common/escape-markdown.js';

/**
 * GFM tables for the tabular formats (CSV, spreadsheets), with the caps that
 * keep a huge sheet from becoming a huge document.
 */

/** Bounds on the tables of one document; past them the rest is left out and the result marked `partial_text`. */
export interface TableCaps {
  /** Rows kept per document, over all its tables. Default 50,000. */
  maxRows: number;
  /** Columns kept per table; a wider table loses its right-hand columns. Default 256. */
  maxColumns: number;
  /** Cells kept per document, over all its tables. Default 1,000,000. */
  maxCells: number;
}

export const DEFAULT_TABLE_CAPS: TableCaps = { maxRows: 50_000, maxColumns: 256, maxCells: 1_000_000 };

/** What is left of a document's row and cell allowance; shared by its tables, so many sheets cannot add up past it. */
export class TableBudget {
  private rows: number;
  private cells: number;
  private chars: number;
  /** True once anything was left out. */
  cut = false;

  /**
   * `maxChars` bounds the text of the cells kept (the document's text limit):
   * a few long shared strings repeated in many cells would otherwise build a
   * table far larger than the file before anything cuts it.
   */
  constructor(readonly caps: TableCaps = DEFAULT_TABLE_CAPS, maxChars = Infinity) {
    this.rows = caps.maxRows;
    this.cells = caps.maxCells;
    this.chars = maxChars;
  }

  /** The rows of one table that fit, each at most `maxColumns` wide; marks {@link cut} when some do not. */
  take(rows: readonly (readonly string[])[]): string[][] {
    const out: string[][] = [];
    for (const row of rows) {
      const width = Math.min(row.length, this.caps.maxColumns);
      if (width < row.length) this.cut = true;
      const kept = row.slice(0, width);
      const chars = kept.reduce((n, c) => n + c.length + 3, 0);
      if (this.rows <= 0 || this.cells < width || this.chars < chars) {
        this.cut = true;
        break;
      }
      this.rows -= 1;
      this.cells -= width;
      this.chars -= chars;
      out.push(kept);
    }
    return out;
  }

  /** Rows still allowed; a reader may stop one past them, since {@link take} then marks the cut. */
  get rowsLeft(): number {
    return this.rows;
  }

  get exhausted(): boolean {
    return this.rows <= 0 || this.cells <= 0 || this.chars <= 0;
  }
}

/**
 * Writes `rows` as a GFM table. With `header`, the first row is the header;
 * without, the header row is left empty so no invented words enter the text.
 * Rows are padded to the widest; `|` is escaped and line breaks become `<br>`.
 */
export function gfmTable(rows: readonly (readonly string[])[], header: boolean): string {
  const width = rows.reduce((w, r) => Math.max(w, r.length), 0);
  if (width === 0) return '';
  const line = (cells: readonly string[]) => {
    const padded = Array.from({ length: width }, (_, i) => cell(cells[i] ?? ''));
    return `| ${padded.join(' | ')} |`;
  };
  const head = header ? rows[0]! : [];
  const body = header ? rows.slice(1) : rows;
  return [line(head), `|${' --- |'.repeat(width)}`, ...body.map(line)].join('\n');
}

/**
 * The plain text of {@link gfmTable}'s table, as reading its Markdown back
 * would give it (one line per row, cells tab-separated, a cell's line breaks
 * kept) but straight from the cells, so a sheet of a million cells is not
 * lexed again to get it.
 */
export function tableText(rows: readonly (readonly string[])[]): string {
  return rows.map((cells) => cells.map((c) => c.trim().replace(/\r\n?/g, '\n')).join('\t')).join('\n');
}

// Tag-like words (`<b>`, `<index>`) and emphasis marks stay text; `|` would end the cell.
function cell(value: string): string {
  return escapeText(value.trim()).replace(/\|/g, '\\|').replace(/\r\n?|\n/g, '<br>');
}

/**
 * True when the first row reads as column names: every cell filled, none a
 * number, and in at least half the columns a different shape of text from the rows below
 * (`version` above `4.10`, not `AD` above `AR`).
 */
export function looksLikeHeader(rows: readonly (readonly string[])[]): boolean {
  const [first, ...body] = rows;
  if (!first || first.length === 0 || body.length === 0) return false;
  if (first.some((c) => c.trim() === '' || isNumeric(c))) return false;
  let alike = 0;
  let judged = 0;
  first.forEach((name, col) => {
    const shapes = new Map<string, number>();
    for (const row of body.slice(0, 50)) {
      const value = row[col]?.trim();
      if (!value) continue;
      const key = shape(value);
      shapes.set(key, (shapes.get(key) ?? 0) + 1);
    }
    if (shapes.size === 0) return;
    judged += 1;
    const common = [...shapes.entries()].sort((a, b) => b[1] - a[1])[0]![0];
    if (shape(name.trim()) === common) alike += 1;
  });
  return judged === 0 || alike / judged <= 0.5;
}

const SHAPE_CHARS = 64;

const isNumeric = (s: string) => /^[-+]?(?:\d[\d,]*)?\.?\d+(?:[eE][-+]?\d+)?%?$/.test(s.trim());

/** Letters, digits and the rest of a value's start, each run folded to one symbol; a long cell's first words tell its shape. */
function shape(value: string): string {
  return value.slice(0, SHAPE_CHARS).replace(/(\p{Lu}+)|(\p{L}+)|(\d+)|\s+/gu, (_m, upper, letters, digits) => (upper ? 'A' : letters ? 'a' : digits ? '9' : ' '));
}
