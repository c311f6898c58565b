import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { getDocument, OPS, type PDFDocumentProxy, type PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { isAllocationFailure, SourceError } from '../../../shared/source-errors.js';
import { documentStyle, joinPagesAtHyphens, pageMarkdown } from './blocks.js';
import { markOutlineHeadings } from './outline-headings.js';
import { readOutline } from './outline.js';
import { formFieldLines, type PdfAnnotation } from './fields.js';
import { pageLines, type PdfLine, type PdfTextItem } from './lines.js';
import { pdfWarnings } from './quality.js';
import { removeRunningLines } from './running.js';
import type { PdfOcr } from './ocr/pdf-ocr.js';
import type { OcrSettings } from './ocr/settings.js';
import type { RawExtraction } from '../types.js';

// pdf.js is the one pdf-parse ships with. It reads these with fs in Node: paths with a trailing separator, never URLs.
const PDFJS_DIR = dirname(createRequire(createRequire(import.meta.url).resolve('pdf-parse')).resolve('pdfjs-dist/package.json'));
const CMAP_DIR = join(PDFJS_DIR, 'cmaps') + '/';
const FONT_DIR = join(PDFJS_DIR, 'standard_fonts') + '/';
// Text extraction never needs bigger images decoded; pdf.js's default is no limit.
const MAX_IMAGE_PIXELS = 4096 * 4096;
// Below this many letters per page a PDF may be a scan with a stray OCR or stamp layer.
const SPARSE_LETTERS_PER_PAGE = 40;
// An image at least this wide and high can be a scanned page.
const SCAN_MIN_PIXELS = 100;
const SCANNED = 'The PDF has no text layer: it looks scanned (image-only) and needs OCR.';
const PDFJS_OPTIONS = {
  cMapUrl: CMAP_DIR,
  cMapPacked: true,
  standardFontDataUrl: FONT_DIR,
  isEvalSupported: false,
  maxImageSize: MAX_IMAGE_PIXELS,
  useSystemFonts: false,
  disableFontFace: true,
  stopAtErrors: false,
  verbosity: 0,
};
const IMAGE_OPS = new Set<number>([OPS.paintImageXObject, OPS.paintInlineImageXObject, OPS.paintImageXObjectRepeat, OPS.paintImageMaskXObject]);

/**
 * Extracts a PDF with pdf.js from bytes only (never a URL): up to `maxPages`
 * pages, and no page after the one where the text read passes `maxChars`
 * (the result is then `truncated`), each as Markdown rebuilt from the positions of its text items
 * (words, lines, columns, paragraphs, headings; running headers and footers
 * kept once at most), followed by its filled form fields. CMaps and standard
 * fonts are loaded so CJK text decodes. The Info Title is the title. An
 * owner-password-only PDF opens; a user password gives `encrypted`; an
 * unreadable file `corrupt`; no text layer on any page `no_text` (scanned,
 * needs OCR). Garbled pages and image-only pages among text pages are warned about.
 */
export async function extractPdf(
  bytes: Uint8Array,
  maxPages: number,
  onProgress?: (progress: { pagesDone: number; pagesTotal: number }) => void,
  maxChars = Number.POSITIVE_INFINITY,
  ocrSettings?: OcrSettings,
): Promise<RawExtraction> {
  let task: ReturnType<typeof getDocument> | undefined;
  try {
    // pdf.js transfers (detaches) the buffer it is given, so it gets a copy (a Uint8Array, never a Buffer).
    task = getDocument({ data: new Uint8Array(bytes), ...PDFJS_OPTIONS });
    const doc = await task.promise;
    const pageCount = doc.numPages;
    const ocr = ocrSettings && new (await import('./ocr/pdf-ocr.js')).PdfOcr(ocrSettings, bytes);
    const { lines, fields } = await readPages(doc, Math.min(pageCount, maxPages), maxChars, onProgress, ocr);
    const pages = lines.length;
    const kept = removeRunningLines(lines);
    const outline = await readOutline(doc, pages);
    const missing = markOutlineHeadings(kept, outline);
    const style = documentStyle(kept, Math.max(0, ...outline.map((e) => e.level)));
    const bodies = joinPagesAtHyphens(kept.map((pageLines, i) => pageMarkdown(pageLines, style, missing.get(i + 1))), style.vocabulary);
    const texts = bodies.map((body, i) => [body, fields[i]!.join('\n')].filter(Boolean).join('\n\n'));
    const letters = countLetters(texts, SPARSE_LETTERS_PER_PAGE * pages);
    if (letters === 0) throw ocr?.emptyError() ?? new SourceError('no_text', SCANNED);
    // Judged before running headers go: a figure page under a running header has a text layer.
    const textless = lines.flatMap((pageLines, i) => (pageLines.some((l) => /[\p{L}\p{N}]/u.test(l.text)) || fields[i]!.length ? [] : [i + 1]));
    if (!ocr?.tally.read.length && letters < SPARSE_LETTERS_PER_PAGE * pages && (await withImages(doc, range(pages))).length * 2 >= pages) {
      throw ocr?.emptyError() ?? new SourceError('no_text', SCANNED);
    }
    // Pages OCR looked at, or names in its own warning, are not reported again as lacking a text layer.
    const unread = ocr ? textless.filter((n) => !ocr.tally.covers(n)) : textless;
    const imageOnly = unread.length ? await withImages(doc, unread) : [];
    const warnings = [...pdfWarnings(texts, imageOnly), ...(ocr?.warnings() ?? [])];
    return { pages: texts, title: await infoTitle(doc), pageCount, truncated: pageCount > pages, ...(warnings.length ? { warnings } : {}) };
  } catch (err) {
    // A refused allocation goes up as it is: the sandbox reports it as the memory limit.
    throw isAllocationFailure(err) ? err : toSourceError(err);
  } finally {
    await task?.destroy().catch(() => undefined);
  }
}

/**
 * Reads pages 1 to `count`, stopping early once the text read passes
 * `maxChars`: the rest would be cut anyway, and laying out a few thousand
 * dense pages takes longer than any extraction may run.
 */
async function readPages(
  doc: PDFDocumentProxy,
  count: number,
  maxChars: number,
  onProgress?: (progress: { pagesDone: number; pagesTotal: number }) => void,
  ocr?: PdfOcr,
): Promise<{ lines: PdfLine[][]; fields: string[][] }> {
  // Listing a page's annotations costs a round trip; only documents with a form need it.
  const hasForm = (await doc.getFieldObjects().catch(() => null)) !== null;
  const lines: PdfLine[][] = [];
  const fields: string[][] = [];
  let chars = 0;
  for (let n = 1; n <= count && chars <= maxChars; n++) {
    const page = await doc.getPage(n);
    try {
      const content = await page.getTextContent();
      // pdf.js's items are laid out as they are (no copy per item); only vertical writing is marked on them.
      const items = content.items.filter((item) => 'str' in item && item.str !== '') as Array<PdfTextItem & { fontName: string }>;
      const vertical = new Set(Object.keys(content.styles).filter((name) => content.styles[name]?.vertical));
      if (vertical.size) for (const item of items) item.vertical = vertical.has(item.fontName);
      const layer = pageLines(items, page.view);
      const pageText = ocr ? await ocr.readPage(page, n, layer) : layer;
      const pageFields = hasForm ? formFieldLines((await page.getAnnotations({ intent: 'display' })) as PdfAnnotation[]) : [];
      lines.push(pageText);
      fields.push(pageFields);
      for (const line of pageText) chars += line.text.length + 1;
      for (const field of pageFields) chars += field.length + 1;
    } finally {
      page.cleanup();
    }
    onProgress?.({ pagesDone: n, pagesTotal: count });
  }
  return { lines, fields };
}

/** Letters and digits in `texts`, counted up to `enough`. */
function countLetters(texts: string[], enough: number): number {
  let n = 0;
  for (const t of texts) {
    if (n >= enough) break;
    n += t.replace(/[^\p{L}\p{N}]+/gu, '').length;
  }
  return n;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** The pages among `numbers` that paint an image as large as a scanned page could be. Painting lists are only built for these. */
async function withImages(doc: PDFDocumentProxy, numbers: number[]): Promise<number[]> {
  const result: number[] = [];
  for (const n of numbers) {
    let page: PDFPageProxy | undefined;
    try {
      page = await doc.getPage(n);
      const ops = await page.getOperatorList();
      if (ops.fnArray.some((fn, i) => IMAGE_OPS.has(fn) && largeImage(ops.argsArray[i] as unknown[]))) result.push(n);
    } catch {
      // A page that cannot be painted tells nothing about images.
    } finally {
      page?.cleanup();
    }
  }
  return result;
}

function largeImage(args: unknown[]): boolean {
  const [first, w, h] = args;
  const size = typeof w === 'number' && typeof h === 'number' ? { width: w, height: h } : (first as { width?: number; height?: number } | undefined);
  return (size?.width ?? 0) >= SCAN_MIN_PIXELS && (size?.height ?? 0) >= SCAN_MIN_PIXELS;
}

async function infoTitle(doc: PDFDocumentProxy): Promise<string | undefined> {
  const meta = await doc.getMetadata().catch(() => undefined);
  const raw: unknown = (meta?.info as Record<string, unknown> | undefined)?.Title;
  return typeof raw === 'string' ? raw.replace(/\s+/g, ' ').trim() || undefined : undefined;
}

function toSourceError(err: unknown): SourceError {
  if (err instanceof SourceError) return err;
  const name = err instanceof Error ? err.name : '';
  if (name === 'PasswordException') return new SourceError('encrypted', 'The PDF is protected by a password.');
  if (err instanceof RangeError) return new SourceError('too_complex', 'The PDF is too complex to read.');
  return new SourceError('corrupt', `The PDF is damaged and could not be read${name ? ` (${name})` : ''}.`);
}
