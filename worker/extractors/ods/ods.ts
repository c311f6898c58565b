import { SourceError } from '../../../shared/source-errors.js';
import { OfficePackage, type OrderedNode } from '../office/office-package.js';
import { chartMarkdown } from '../office/chart-text.js';
import { odfChartText } from '../office/odf-chart-text.js';
import { attrOf, childrenOf, descendants, path, tagOf } from '../office/ordered-xml.js';
import { DEFAULT_TABLE_CAPS, gfmTable, looksLikeHeader, TableBudget, type TableCaps } from '../table/gfm-table.js';
import type { ExtractionWarning, RawExtraction } from '../types.js';
import { NumberStyles } from './number-styles.js';
import { Workbook } from './recalc.js';
import { decimalSeparator, readSheet, type SheetRead } from './sheet-grid.js';

/** Limits of one spreadsheet's extraction. */
export interface OdsOptions {
  /** Refuse (`too_complex`) when the parts declare more than this many bytes unpacked. Default 256 MiB. */
  maxUnpackedBytes?: number;
  /** Bound on the text of the tables kept. */
  maxTextChars: number;
  caps?: TableCaps;
}

/**
 * Extracts an OpenDocument spreadsheet (ODS) as XLSX is: one `## <sheet
 * name>` section per sheet in order, its used range as a GFM table. Cells
 * hold the text the sheet displays (ODF stores it beside the value), so
 * numbers and dates read as shown and formulas never appear; the formula
 * cells LibreOffice computes again on opening are computed here too, within
 * bounds (see `recalc.ts`). Repeated rows and columns are expanded only
 * while they hold text, within the caps. The title, axis titles and series
 * names of the charts drawn on a sheet follow its table, as for XLSX.
 */
export async function extractOds(bytes: Uint8Array, opts: OdsOptions): Promise<RawExtraction> {
  const pkg = await OfficePackage.open(bytes, 'ODS', opts.maxUnpackedBytes);
  if (/encryption-data/.test(pkg.text('META-INF/manifest.xml') ?? '')) {
    throw new SourceError('encrypted', 'The OpenDocument file is protected by a password.');
  }
  const content = pkg.orderedXml('content.xml');
  const sheetRoot = path(content, 'document-content', 'body', 'spreadsheet');
  if (!content || !sheetRoot) throw new SourceError('corrupt', 'The ODS has no spreadsheet body: it is damaged or not a spreadsheet.');
  const caps = opts.caps ?? DEFAULT_TABLE_CAPS;
  const tables = childrenOf(sheetRoot).filter((n) => tagOf(n) === 'table');
  const sheets = tables.map((t): [string, SheetRead, OrderedNode] => [attrOf(t, 'name') ?? '', readSheet(t, caps), t]);
  const decimal = decimalSeparator(sheets.map(([, s]) => s));
  // ODF compares text with case unless the document says otherwise (LibreOffice writes `false` for its default).
  const caseSensitive = attrOf(path(content, 'document-content', 'body', 'spreadsheet', 'calculation-settings'), 'case-sensitive') !== 'false';
  const workbook = new Workbook(new Map(sheets.map(([name, s]) => [name, s.grid])), new NumberStyles(styleRoots(pkg, content), decimal), { decimal, caseSensitive });
  const budget = new TableBudget(caps, opts.maxTextChars);
  const sections: string[] = [];
  let left = 0;
  for (const [name, sheet, table] of sheets) {
    if (budget.exhausted || budget.cut) {
      left += 1;
      continue;
    }
    const shown = sheet.rows.map((cells, i) => trimEnd(cells.map((c, col) => (c ? workbook.display(name, col, sheet.rowIndex[i]!, c) : ''))));
    const rows = budget.take(usedRange(shown));
    const heading = `## ${(name || 'Sheet').replace(/\s+/g, ' ').trim()}`;
    const charts = descendants(childrenOf(table), 'object').map((o) => odfChartText(pkg, attrOf(o, 'href'))).filter((c) => c !== undefined);
    sections.push([heading, rows.length > 0 ? gfmTable(rows, looksLikeHeader(rows)) : '', ...charts.map(chartMarkdown)].filter(Boolean).join('\n\n'));
  }
  const partial = budget.cut || left > 0;
  const warnings: ExtractionWarning[] = partial ? [{ code: 'partial_text', message: 'Only part of the spreadsheet was extracted: it has more rows, columns or cells than the limits.' }] : [];
  return { markdown: sections.join('\n\n'), ...(partial ? { truncated: true, warnings } : {}) };
}

/** Where number and cell styles live: the automatic styles of `content.xml`, the common and automatic ones of `styles.xml`. */
function styleRoots(pkg: OfficePackage, content: OrderedNode[]): OrderedNode[] {
  const roots = [path(content, 'document-content', 'automatic-styles')];
  try {
    const styles = pkg.orderedXml('styles.xml');
    roots.push(path(styles, 'document-styles', 'styles'), path(styles, 'document-styles', 'automatic-styles'));
  } catch {
    // Unreadable styles only cost the number formats of recalculated cells.
  }
  return roots.filter((r): r is OrderedNode => r !== undefined);
}

function trimEnd(cells: string[]): string[] {
  while (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
  return cells;
}

/** Drops empty rows and the empty columns to the left of every row's first value. */
function usedRange(rows: string[][]): string[][] {
  const kept = rows.filter((r) => r.some((c) => c !== ''));
  const left = Math.min(...kept.map((r) => r.findIndex((c) => c !== '')));
  return Number.isFinite(left) && left > 0 ? kept.map((r) => r.slice(left)) : kept;
}
