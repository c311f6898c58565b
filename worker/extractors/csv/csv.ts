import Papa from 'papaparse';
import { decodeText } from '../text-decode.js';
import { DEFAULT_TABLE_CAPS, gfmTable, looksLikeHeader, TableBudget, type TableCaps } from '../table/gfm-table.js';
import type { RawExtraction } from '../types.js';

const DELIMITERS = [',', '\t', ';', '|'];
// A cell of more words than this on average is a sentence cut at its commas, not a value.
const MAX_WORDS_PER_CELL = 12;
// Share of rows whose field count fits the first row's for the file to be a table.
const MIN_CONSISTENT_ROWS = 0.9;

/**
 * Extracts a CSV or TSV: decoded as plain text is (BOM, UTF-8, UTF-16 or a
 * checked single-byte guess), the delimiter guessed among comma, tab,
 * semicolon and bar, and written as one GFM table, the first row as header
 * when it looks like one. A leading block of `#` comment lines (tzdata's
 * `zone.tab`) and every later `#` line are not rows. A file that does not
 * hold a consistent table, a `.csv` that is really prose, stays plain text.
 * Past the caps the table is cut and marked `partial_text`.
 */
export async function extractCsv(bytes: Uint8Array, caps: TableCaps = DEFAULT_TABLE_CAPS, maxTextChars = Infinity): Promise<RawExtraction> {
  const decoded = decodeText(bytes).text;
  const source = withoutComments(decoded);
  const parsed = Papa.parse<string[]>(source, { delimiter: '', delimitersToGuess: DELIMITERS, skipEmptyLines: 'greedy' });
  const rows = parsed.data.map((row) => trimTrailingEmpty(row));
  if (!isTable(rows)) return { markdown: decoded };

  const budget = new TableBudget(caps, maxTextChars);
  const kept = budget.take(rows);
  const markdown = gfmTable(kept, looksLikeHeader(kept));
  return budget.cut
    ? { markdown, truncated: true, warnings: [{ code: 'partial_text', message: `Only the first ${kept.length} rows and ${caps.maxColumns} columns of the table were kept: it is larger than the limits.` }] }
    : { markdown };
}

/** Drops `#` lines when the file opens with one: a commented data file, where such a line is never a row. */
function withoutComments(text: string): string {
  const body = text.replace(/^\ufeff/, '');
  if (!body.startsWith('#')) return body;
  return body.split(/\r\n?|\n/).filter((line) => !line.startsWith('#')).join('\n');
}

function trimTrailingEmpty(row: string[]): string[] {
  let end = row.length;
  while (end > 0 && row[end - 1]!.trim() === '') end -= 1;
  return row.slice(0, end);
}

/**
 * A table has at least two rows, two fields or more in its first row or in
 * a twentieth of its rows, nearly every row of two fields and no wider than those
 * (shorter rows are rows with empty trailing cells), and cells short enough
 * to be values.
 */
function isTable(rows: readonly string[][]): boolean {
  const counts = new Map<number, number>();
  for (const r of rows) counts.set(r.length, (counts.get(r.length) ?? 0) + 1);
  // The widest count that many rows share: an optional last column (tzdata's comments) is still a column.
  const common = [...counts.entries()].filter(([, n]) => n >= rows.length * 0.05).map(([w]) => w);
  const width = Math.max(rows[0]?.length ?? 0, ...common);
  if (rows.length < 2 || width < 2) return false;
  const fitting = rows.filter((r) => r.length >= 2 && r.length <= width).length;
  if (fitting / rows.length < MIN_CONSISTENT_ROWS) return false;
  const sample = rows.slice(0, 200).flat().filter((c) => c.trim() !== '');
  const words = sample.reduce((n, c) => n + c.trim().split(/\s+/).length, 0);
  return sample.length > 0 && words / sample.length <= MAX_WORDS_PER_CELL;
}
