import { SourceError } from '../../../shared/source-errors.js';
import { OfficePackage } from '../office/office-package.js';
import { chartMarkdown } from '../office/chart-markdown.js';
import { odfChartText } from '../office/odf-chart-text.js';
import { attrOf, childrenOf, descendants } from '../office/ordered-xml.js';
import { DEFAULT_TABLE_CAPS, gfmTable, looksLikeHeader, TableBudget, type TableCaps } from '../table/gfm-table.js';
import type { ExtractionWarning, RawExtraction } from '../types.js';
import { readSpreadsheet, shownRows } from './spreadsheet.js';

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
  const caps = opts.caps ?? DEFAULT_TABLE_CAPS;
  const spreadsheet = readSpreadsheet(pkg, 'content.xml', caps);
  if (!spreadsheet) throw new SourceError('corrupt', 'The ODS has no spreadsheet body: it is damaged or not a spreadsheet.');
  const budget = new TableBudget(caps, opts.maxTextChars);
  const sections: string[] = [];
  let left = 0;
  for (const sheet of spreadsheet.sheets) {
    if (budget.exhausted || budget.cut) {
      left += 1;
      continue;
    }
    const rows = budget.take(shownRows(sheet, spreadsheet.workbook));
    const heading = `## ${(sheet.name || 'Sheet').replace(/\s+/g, ' ').trim()}`;
    const charts = descendants(childrenOf(sheet.table), 'object').map((o) => odfChartText(pkg, attrOf(o, 'href'))).filter((c) => c !== undefined);
    sections.push([heading, rows.length > 0 ? gfmTable(rows, looksLikeHeader(rows)) : '', ...charts.map(chartMarkdown)].filter(Boolean).join('\n\n'));
  }
  const partial = budget.cut || left > 0;
  const warnings: ExtractionWarning[] = partial ? [{ code: 'partial_text', message: 'Only part of the spreadsheet was extracted: it has more rows, columns or cells than the limits.' }] : [];
  return { markdown: sections.join('\n\n'), ...(partial ? { truncated: true, warnings } : {}) };
}
