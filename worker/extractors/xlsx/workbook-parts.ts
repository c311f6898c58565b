import { asArray, textOf, type OfficePackage, type XmlNode } from '../office/office-package.js';
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

/** Each `si` as its plain text: the `t`, or its rich-text runs joined; phonetic guides (`rPh`) are left out. */
function readSharedStrings(pkg: OfficePackage, part: string): string[] {
  const sst = pkg.xml(part)?.sst as XmlNode | undefined;
  return asArray(sst?.si).map(richText);
}

/** The text of a string item (`si`, `is`): its `t`, or its runs' `t` in order. */
export function richText(item: XmlNode | undefined): string {
  if (!item) return '';
  const runs = asArray(item.r).map((r) => textOf(r.t)).join('');
  return textOf(item.t) + runs;
}

function readStyleFormats(pkg: OfficePackage, part: string): string[] {
  const sheet = pkg.xml(part)?.styleSheet as XmlNode | undefined;
  if (!sheet) return [];
  const custom = new Map<number, string>();
  for (const f of asArray((sheet.numFmts as XmlNode | undefined)?.numFmt)) custom.set(Number(f['@numFmtId']), String(f['@formatCode'] ?? ''));
  return asArray((sheet.cellXfs as XmlNode | undefined)?.xf).map((xf) => formatCode(Number(xf['@numFmtId'] ?? 0), custom));
}
