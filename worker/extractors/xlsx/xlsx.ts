import { SourceError } from '../../../shared/source-errors.js';
import { chartMarkdown, chartPlain } from '../office/chart-markdown.js';
import { coreTitle, OfficePackage } from '../office/office-package.js';
import { DEFAULT_TABLE_CAPS, gfmTable, looksLikeHeader, TableBudget, tableText, type TableCaps } from '../table/gfm-table.js';
import type { ExtractionWarning, RawExtraction } from '../types.js';
import { sheetRows } from './sheet-grid.js';
import { readWorkbook, sheetCharts } from './workbook-parts.js';

/** Limits of one workbook's extraction. */
export interface XlsxOptions {
  /** Refuse (`too_complex`) when the parts declare more than this many bytes unpacked. Default 256 MiB. */
  maxUnpackedBytes?: number;
  /** Stop adding sheets once the Markdown is this long (the caller cuts it exactly). */
  maxTextChars: number;
  /** Row, column and cell caps per workbook. */
  caps?: TableCaps;
}

const OFFICE_DOCUMENT = /\/officeDocument$/;

/**
 * Extracts an XLSX or XLSM (macros are never read, let alone run): one
 * `## <sheet name>` section per sheet in workbook order, each sheet's used
 * range as a GFM table whose first row is the header when it looks like one,
 * then the title, axis titles and series names of the charts drawn on it.
 * Hidden sheets are kept and marked `(hidden)`; very hidden ones (never shown
 * by Excel) are skipped. The ZIP gets the DOCX bomb checks, and no XML part
 * with a DOCTYPE is parsed. Past the row, column or cell caps the rest is
 * left out and the result marked `partial_text`.
 */
export async function extractXlsx(bytes: Uint8Array, opts: XlsxOptions): Promise<RawExtraction> {
  const pkg = await OfficePackage.open(bytes, 'XLSX', opts.maxUnpackedBytes);
  const rootRels = pkg.relationships('');
  const workbookPart = [...rootRels.values()].find((r) => OFFICE_DOCUMENT.test(r.type))?.target ?? 'xl/workbook.xml';
  if (!pkg.has(workbookPart)) throw new SourceError('corrupt', 'The XLSX has no workbook part: it is damaged or not a spreadsheet.');
  const { sheets, context } = readWorkbook(pkg, workbookPart);

  const caps = opts.caps ?? DEFAULT_TABLE_CAPS;
  const budget = new TableBudget(caps, opts.maxTextChars);
  const sections: string[] = [];
  const texts: string[] = [];
  let length = 0;
  let sheetsLeft = 0;
  for (const sheet of sheets) {
    if (sheet.state === 'veryHidden') continue;
    if (budget.exhausted || budget.cut || length > opts.maxTextChars) {
      sheetsLeft += 1;
      continue;
    }
    const rows = sheet.part && pkg.has(sheet.part) ? budget.take(sheetRows(pkg.scan(sheet.part), context, caps.maxColumns, budget.rowsLeft)) : [];
    const title = `${sheet.name.replace(/\s+/g, ' ').trim() || 'Sheet'}${sheet.state === 'hidden' ? ' (hidden)' : ''}`;
    const charts = sheet.part ? sheetCharts(pkg, sheet.part) : [];
    const section = [`## ${title}`, rows.length > 0 ? gfmTable(rows, looksLikeHeader(rows)) : '', ...charts.map(chartMarkdown)].filter(Boolean).join('\n\n');
    sections.push(section);
    texts.push([title, rows.length > 0 ? tableText(rows) : '', ...charts.map(chartPlain)].filter(Boolean).join('\n\n'));
    length += section.length + 2;
  }
  const warnings: ExtractionWarning[] = [];
  const partial = budget.cut || sheetsLeft > 0;
  if (partial) {
    warnings.push({ code: 'partial_text', message: 'Only part of the workbook was extracted: it has more rows, columns or cells than the limits.' });
  }
  const title = coreTitle(pkg);
  return { markdown: sections.join('\n\n'), text: texts.join('\n\n'), ...(title ? { title } : {}), ...(partial ? { truncated: true, warnings } : {}) };
}
