import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { formFieldLines, type PdfAnnotation } from './fields.js';
import { boldFonts } from './fonts.js';
import { pageLines, type PdfLine, type PdfTextItem } from './lines.js';
import type { PdfOcr } from './ocr/pdf-ocr.js';

/** Pages `from` to `to`, 1-based and inclusive. */
export interface PageRange {
  from: number;
  to: number;
}

/** The lines and filled form fields of consecutive pages, one entry per page read. */
export interface PagesRead {
  lines: PdfLine[][];
  fields: string[][];
}

/** Whether the document has a form: only then are a page's annotations worth listing (a round trip each). */
export async function hasForm(doc: PDFDocumentProxy): Promise<boolean> {
  return (await doc.getFieldObjects().catch(() => null)) !== null;
}

/**
 * Reads the pages of `range`, stopping early once the text read passes
 * `maxChars`: the rest would be cut anyway, and laying out a few thousand
 * dense pages takes longer than any extraction may run. `onPage` is told
 * after each page. With `ocr`, a page whose text layer needs it is read by OCR.
 */
export async function readPages(
  doc: PDFDocumentProxy,
  range: PageRange,
  withForm: boolean,
  maxChars: number,
  onPage?: () => void,
  ocr?: PdfOcr,
): Promise<PagesRead> {
  const read: PagesRead = { lines: [], fields: [] };
  let chars = 0;
  for (let n = range.from; n <= range.to && chars <= maxChars; n++) {
    const page = await doc.getPage(n);
    try {
      const content = await page.getTextContent();
      // pdf.js's items are laid out as they are (no copy per item); only vertical writing and bold fonts are marked on them.
      const items = content.items.filter((item) => 'str' in item && item.str !== '') as Array<PdfTextItem & { fontName: string }>;
      const vertical = new Set(Object.keys(content.styles).filter((name) => content.styles[name]?.vertical));
      if (vertical.size) for (const item of items) item.vertical = vertical.has(item.fontName);
      const bold = boldFonts(content.styles);
      if (bold.size) for (const item of items) if (bold.has(item.fontName)) item.bold = true;
      const layer = pageLines(items, page.view);
      const pageText = ocr ? await ocr.readPage(page, n, layer) : layer;
      const pageFields = withForm ? formFieldLines((await page.getAnnotations({ intent: 'display' })) as PdfAnnotation[]) : [];
      read.lines.push(pageText);
      read.fields.push(pageFields);
      chars += pageChars(pageText, pageFields);
    } finally {
      page.cleanup();
    }
    onPage?.();
  }
  return read;
}

/**
 * Pages another child read (text layers only) given to `ocr` here, page by
 * page, so a scanned page in a lent range is read as in a single pass.
 */
export async function ocrPagesRead(doc: PDFDocumentProxy, read: PagesRead, from: number, ocr: PdfOcr): Promise<PagesRead> {
  const lines: PdfLine[][] = [];
  for (const [i, layer] of read.lines.entries()) {
    const page = await doc.getPage(from + i);
    try {
      lines.push(await ocr.readPage(page, from + i, layer));
    } finally {
      page.cleanup();
    }
  }
  return { lines, fields: read.fields };
}

function pageChars(lines: PdfLine[], fields: string[]): number {
  let chars = 0;
  for (const line of lines) chars += line.text.length + 1;
  for (const field of fields) chars += field.length + 1;
  return chars;
}

/**
 * Joins the reads of consecutive ranges in page order and keeps the pages a
 * single pass from the first page would have read: none after the one where
 * the text passes `maxChars`.
 */
export function joinReads(reads: PagesRead[], maxChars: number): PagesRead {
  const joined: PagesRead = { lines: [], fields: [] };
  let chars = 0;
  for (const read of reads) {
    for (let i = 0; i < read.lines.length && chars <= maxChars; i++) {
      joined.lines.push(read.lines[i]!);
      joined.fields.push(read.fields[i]!);
      chars += pageChars(read.lines[i]!, read.fields[i]!);
    }
  }
  return joined;
}

/** Text read so far, in the same count {@link readPages} stops on. */
export function charsRead(read: PagesRead): number {
  return read.lines.reduce((n, lines, i) => n + pageChars(lines, read.fields[i]!), 0);
}

/**
 * `count` pages cut into `parts` consecutive ranges of nearly equal length
 * (fewer when pages are fewer). With `headStart`, the first range is that
 * many pages longer than the others, for a reader that starts that much
 * before the rest.
 */
export function splitPages(count: number, parts: number, headStart = 0): PageRange[] {
  const n = Math.max(1, Math.min(parts, count));
  const first = n === 1 ? count : Math.min(count - n + 1, Math.ceil((count + headStart * (n - 1)) / n));
  const ranges: PageRange[] = [{ from: 1, to: first }];
  const rest = count - first;
  for (let i = 0, from = first + 1; i < n - 1; i++) {
    const to = from + Math.floor(rest / (n - 1)) + (i < rest % (n - 1) ? 1 : 0) - 1;
    ranges.push({ from, to });
    from = to + 1;
  }
  return ranges;
}
