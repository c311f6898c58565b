import { OfficePackage, type OrderedNode } from '../office/office-package.js';
import { attrOf, childrenOf, path, tagOf } from '../office/ordered-xml.js';
import { DEFAULT_TABLE_CAPS, gfmTable, looksLikeHeader, TableBudget, type TableCaps } from '../table/gfm-table.js';
import { NumberStyles } from './number-styles.js';
import { Workbook } from './recalc.js';
import { decimalSeparator, readSheet, type SheetRead } from './sheet-grid.js';

/** The sheets of an OpenDocument spreadsheet body, read, and the workbook their formulas are computed in. */
export interface Spreadsheet {
  sheets: { name: string; read: SheetRead; table: OrderedNode }[];
  workbook: Workbook;
}

/**
 * Reads the spreadsheet body of a content part (`content.xml` of an ODS, or
 * of a spreadsheet object embedded in another document, `Object 1/content.xml`),
 * its number styles from that part and the `styles.xml` beside it.
 * Undefined when the part has no spreadsheet body.
 */
export function readSpreadsheet(pkg: OfficePackage, part: string, caps: TableCaps): Spreadsheet | undefined {
  const content = pkg.orderedXml(part);
  const body = path(content, 'document-content', 'body', 'spreadsheet');
  if (!content || !body) return undefined;
  const sheets = childrenOf(body).filter((n) => tagOf(n) === 'table').map((table) => ({ name: attrOf(table, 'name') ?? '', read: readSheet(table, caps), table }));
  const decimal = decimalSeparator(sheets.map((s) => s.read));
  // ODF compares text with case unless the document says otherwise (LibreOffice writes `false` for its default).
  const caseSensitive = attrOf(child(body, 'calculation-settings'), 'case-sensitive') !== 'false';
  const stylesPart = part.replace(/content\.xml$/, 'styles.xml');
  const styles = new NumberStyles(styleRoots(pkg, content, stylesPart), decimal);
  return { sheets, workbook: new Workbook(new Map(sheets.map((s) => [s.name, s.read.grid])), styles, { decimal, caseSensitive }) };
}

/** A sheet's used range as the sheet shows it: recalculated where LibreOffice would, empty rows and leading empty columns dropped. */
export function shownRows(sheet: Spreadsheet['sheets'][number], workbook: Workbook): string[][] {
  const shown = sheet.read.rows.map((cells, i) => trimEnd(cells.map((c, col) => (c ? workbook.display(sheet.name, col, sheet.read.rowIndex[i]!, c) : ''))));
  const kept = shown.filter((r) => r.some((c) => c !== ''));
  const left = Math.min(...kept.map((r) => r.findIndex((c) => c !== '')));
  return Number.isFinite(left) && left > 0 ? kept.map((r) => r.slice(left)) : kept;
}

/**
 * The tables of a spreadsheet object embedded in a text document
 * (`draw:object` pointing at a part with a spreadsheet body), one GFM table
 * per non-empty sheet, within the default table caps and `maxTextChars`.
 * Empty for another kind of object.
 */
export function embeddedSheetTables(pkg: OfficePackage, href: string | undefined, maxTextChars: number): string[] {
  if (!href || /^[a-z][a-z0-9+.-]*:/i.test(href)) return [];
  const part = `${href.replace(/^\.\//, '').replace(/\/$/, '')}/content.xml`;
  const xml = pkg.has(part) ? pkg.text(part) : undefined;
  if (!xml || !/<(?:[\w-]+:)?spreadsheet[\s/>]/.test(xml)) return [];
  const sheet = readSpreadsheet(pkg, part, DEFAULT_TABLE_CAPS);
  if (!sheet) return [];
  const budget = new TableBudget(DEFAULT_TABLE_CAPS, maxTextChars);
  const tables: string[] = [];
  for (const s of sheet.sheets) {
    if (budget.exhausted || budget.cut) break;
    const rows = budget.take(shownRows(s, sheet.workbook));
    if (rows.length > 0) tables.push(gfmTable(rows, looksLikeHeader(rows)));
  }
  return tables;
}

function child(node: OrderedNode, tag: string): OrderedNode | undefined {
  return childrenOf(node).find((n) => tagOf(n) === tag);
}

/** Where number and cell styles live: the automatic styles of the content part, the common and automatic ones of its styles part. */
function styleRoots(pkg: OfficePackage, content: OrderedNode[], stylesPart: string): OrderedNode[] {
  const roots = [path(content, 'document-content', 'automatic-styles')];
  try {
    const styles = pkg.has(stylesPart) ? pkg.orderedXml(stylesPart) : undefined;
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
