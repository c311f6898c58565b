import { asArray, textOf, type OfficePackage, type XmlNode } from '../office/office-package.js';
import { chartText, type ChartText } from '../office/chart-text.js';
import type { XmlScanner } from '../office/xml-scan.js';
import { formatCode } from './cell-format.js';

/** What a sheet's cells need from the rest of the workbook. */
export interface WorkbookContext {
  sharedStrings: string[];
  /** Format code of each cell style (`s` attribute), by index. */
  styleFormats: string[];
  date1904: boolean;
}

/** One sheet of `workbook.xml`, in workbook order, with its part name. */
export interface SheetRef {
  name: string;
  state: 'visible' | 'hidden' | 'veryHidden';
  part: string | undefined;
}

/** The sheets in order and the shared context, read from the workbook part and its relationships. */
export function readWorkbook(pkg: OfficePackage, workbookPart: string): { sheets: SheetRef[]; context: WorkbookContext } {
  const workbook = (pkg.xml(workbookPart)?.workbook ?? {}) as XmlNode;
  const rels = pkg.relationships(workbookPart);
  const byType = (suffix: string) => [...rels.values()].find((r) => r.type.endsWith(suffix))?.target;
  const pr = workbook.workbookPr as XmlNode | undefined;
  const date1904 = pr?.['@date1904'] === '1' || pr?.['@date1904'] === 'true';
  const sheets = asArray((workbook.sheets as XmlNode | undefined)?.sheet).map((s): SheetRef => {
    const state = s['@state'] === 'hidden' || s['@state'] === 'veryHidden' ? s['@state'] : 'visible';
    return { name: String(s['@name'] ?? ''), state, part: rels.get(String(s['@id'] ?? ''))?.target };
  });
  return {
    sheets,
    context: {
      sharedStrings: readSharedStrings(pkg, byType('/sharedStrings') ?? 'xl/sharedStrings.xml'),
      styleFormats: readStyleFormats(pkg, byType('/styles') ?? 'xl/styles.xml'),
      date1904,
    },
  };
}

/** Each `si` as its plain text (see {@link richText}), read tag by tag: a workbook may hold hundreds of thousands. */
function readSharedStrings(pkg: OfficePackage, part: string): string[] {
  const scan = pkg.scan(part);
  const strings: string[] = [];
  while (scan?.next()) {
    if (scan.name === 'si' && !scan.closing) strings.push(scan.empty ? '' : richText(scan));
  }
  return strings;
}

/**
 * The text of the string item (`si`, `is`) the scanner has just opened, read
 * to its end: its `t`, or its runs' `t` in order; phonetic guides (`rPh`)
 * are left out.
 */
export function richText(scan: XmlScanner): string {
  const item = scan.name;
  let text = '';
  while (scan.next()) {
    if (scan.closing) {
      if (scan.name === item) break;
      continue;
    }
    if (scan.name === 'rPh') scan.skipElement();
    else if (scan.name === 't' && !scan.empty) text += scan.text();
  }
  return text;
}

function readStyleFormats(pkg: OfficePackage, part: string): string[] {
  const sheet = pkg.xml(part)?.styleSheet as XmlNode | undefined;
  if (!sheet) return [];
  const custom = new Map<number, string>();
  for (const f of asArray((sheet.numFmts as XmlNode | undefined)?.numFmt)) custom.set(Number(f['@numFmtId']), String(f['@formatCode'] ?? ''));
  return asArray((sheet.cellXfs as XmlNode | undefined)?.xf).map((xf) => formatCode(Number(xf['@numFmtId'] ?? 0), custom));
}

/**
 * The text of the charts drawn on a sheet (see {@link chartText}), in the
 * order of its drawing: the sheet's drawing part, then each chart frame's
 * chart part.
 */
export function sheetCharts(pkg: OfficePackage, sheetPart: string): ChartText[] {
  const charts: ChartText[] = [];
  for (const drawing of pkg.relationships(sheetPart).values()) {
    if (!drawing.type.endsWith('/drawing') || !pkg.has(drawing.target)) continue;
    const rels = pkg.relationships(drawing.target);
    const scan = pkg.scan(drawing.target);
    while (scan?.next()) {
      if (scan.name !== 'chart' || scan.closing) continue;
      const part = rels.get(scan.attrs(['id']).id ?? '')?.target;
      const chart = part ? chartText(pkg, part) : undefined;
      if (chart) charts.push(chart);
    }
  }
  return charts;
}
