import { SourceError } from '../../../shared/source-errors.js';
import { OfficePackage, type OrderedNode } from '../office/office-package.js';
import { attrOf, childrenOf, path, tagOf, textIn } from '../office/ordered-xml.js';
import { DEFAULT_TABLE_CAPS, gfmTable, looksLikeHeader, TableBudget, type TableCaps } from '../table/gfm-table.js';
import type { ExtractionWarning, RawExtraction } from '../types.js';

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
 * numbers and dates read as shown and formulas never appear. Repeated rows
 * and columns are expanded only while they hold text, within the caps.
 */
export async function extractOds(bytes: Uint8Array, opts: OdsOptions): Promise<RawExtraction> {
  const pkg = await OfficePackage.open(bytes, 'ODS', opts.maxUnpackedBytes);
  if (/encryption-data/.test(pkg.text('META-INF/manifest.xml') ?? '')) {
    throw new SourceError('encrypted', 'The OpenDocument file is protected by a password.');
  }
  const sheetRoot = path(pkg.orderedXml('content.xml'), 'document-content', 'body', 'spreadsheet');
  if (!sheetRoot) throw new SourceError('corrupt', 'The ODS has no spreadsheet body: it is damaged or not a spreadsheet.');
  const caps = opts.caps ?? DEFAULT_TABLE_CAPS;
  const budget = new TableBudget(caps, opts.maxTextChars);
  const sections: string[] = [];
  let left = 0;
  for (const table of childrenOf(sheetRoot).filter((n) => tagOf(n) === 'table')) {
    if (budget.exhausted || budget.cut) {
      left += 1;
      continue;
    }
    const rows = budget.take(usedRange(sheetRows(table, caps)));
    const heading = `## ${(attrOf(table, 'name') ?? 'Sheet').replace(/\s+/g, ' ').trim()}`;
    sections.push(rows.length > 0 ? `${heading}\n\n${gfmTable(rows, looksLikeHeader(rows))}` : heading);
  }
  const partial = budget.cut || left > 0;
  const warnings: ExtractionWarning[] = partial ? [{ code: 'partial_text', message: 'Only part of the spreadsheet was extracted: it has more rows, columns or cells than the limits.' }] : [];
  return { markdown: sections.join('\n\n'), ...(partial ? { truncated: true, warnings } : {}) };
}

/** Rows of displayed text, repeats expanded while they hold text; trailing empty rows and cells dropped. */
function sheetRows(table: OrderedNode, caps: TableCaps): string[][] {
  const rows: string[][] = [];
  const visit = (nodes: readonly OrderedNode[]) => {
    for (const node of nodes) {
      const tag = tagOf(node);
      if (tag === 'table-row') {
        const cells = rowCells(node, caps.maxColumns + 1);
        const repeat = cells.length === 0 ? 1 : Math.min(Number(attrOf(node, 'number-rows-repeated') ?? 1), caps.maxRows + 1);
        for (let i = 0; i < repeat && rows.length <= caps.maxRows; i++) rows.push(cells);
      } else if (tag === 'table-header-rows' || tag === 'table-rows' || tag === 'table-row-group') visit(childrenOf(node));
    }
  };
  visit(childrenOf(table));
  while (rows.length > 0 && rows[rows.length - 1]!.length === 0) rows.pop();
  return rows;
}

function rowCells(row: OrderedNode, maxColumns: number): string[] {
  const cells: string[] = [];
  for (const cell of childrenOf(row)) {
    if (tagOf(cell) !== 'table-cell' && tagOf(cell) !== 'covered-table-cell') continue;
    const text = childrenOf(cell).filter((n) => tagOf(n) === 'p').map((p) => textIn(childrenOf(p)).replace(/\s+/g, ' ').trim()).join(' ');
    const repeat = text === '' ? Number(attrOf(cell, 'number-columns-repeated') ?? 1) : Math.min(Number(attrOf(cell, 'number-columns-repeated') ?? 1), maxColumns);
    // Empty repeats (often 1024 columns of nothing) are only counted, never built.
    if (text === '' && cells.length + repeat > maxColumns) break;
    for (let i = 0; i < repeat && cells.length < maxColumns; i++) cells.push(text);
  }
  while (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
  return cells;
}

/** Drops empty rows and the empty columns to the left of every row's first value. */
function usedRange(rows: string[][]): string[][] {
  const kept = rows.filter((r) => r.some((c) => c !== ''));
  const left = Math.min(...kept.map((r) => r.findIndex((c) => c !== '')));
  return Number.isFinite(left) && left > 0 ? kept.map((r) => r.slice(left)) : kept;
}
