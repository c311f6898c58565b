import { OPS, type PDFDocumentProxy, type PDFPageProxy } from './pdfjs.js';
import { isAllocationFailure, SourceError } from '../../../shared/source-errors.js';
import { documentStyle, joinPagesAtHyphens, pageMarkdown } from './blocks.js';
import { monotoneHeadings } from './headings.js';
import { markOutlineHeadings } from './outline-headings.js';
import { readOutline } from './outline.js';
import { openPdf } from './open-pdf.js';
import { pdfWarnings } from './quality.js';
import { removeRunningLines } from './running.js';
import type { PdfOcr } from './ocr/pdf-ocr.js';
import type { OcrSettings } from './ocr/settings.js';
import { readDocument, type PageSharing } from './split-read.js';
import type { RawExtraction } from '../types.js';

// Below this many letters per page a PDF may be a scan with a stray OCR or stamp layer.
const SPARSE_LETTERS_PER_PAGE = 40;
// An image at least this wide and high can be a scanned page.
const SCAN_MIN_PIXELS = 100;
const SCANNED = 'The PDF has no text layer: it looks scanned (image-only) and needs OCR.';
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
 * With `sharing`, other sandbox children read page ranges of a long document
 * at the same time (see {@link readDocument}); the rebuild below sees all pages.
 */
export async function extractPdf(
  bytes: Uint8Array,
  maxPages: number,
  onProgress?: (progress: { pagesDone: number; pagesTotal: number }) => void,
  maxChars = Number.POSITIVE_INFINITY,
  ocrSettings?: OcrSettings,
  sharing?: PageSharing,
): Promise<RawExtraction> {
  let task: ReturnType<typeof openPdf> | undefined;
  try {
    task = openPdf(bytes);
    const doc = await task.promise;
    const pageCount = doc.numPages;
    const ocr = ocrSettings && new (await import('./ocr/pdf-ocr.js')).PdfOcr(ocrSettings, bytes);
    const { lines, fields } = await readDocument(doc, Math.min(pageCount, maxPages), maxChars, sharing && { ...sharing, bytes: bytes.length }, onProgress, ocr);
    const pages = lines.length;
    const kept = removeRunningLines(lines);
    const outline = await readOutline(doc, pages);
    const missing = markOutlineHeadings(kept, outline);
    const style = documentStyle(kept, Math.max(0, ...outline.map((e) => e.level)));
    const bodies = joinPagesAtHyphens(kept.map((pageLines, i) => pageMarkdown(pageLines, style, missing.get(i + 1))), style.vocabulary);
    const withFields = (body: string, i: number): string => [body, fields[i]!.join('\n')].filter(Boolean).join('\n\n');
    const texts = monotoneHeadings(bodies.map((b) => b.markdown)).map(withFields);
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
    const text = bodies.map((b, i) => withFields(b.text, i)).filter(Boolean).join('\n\n');
    return { pages: texts, text, title: await infoTitle(doc), pageCount, truncated: pageCount > pages, ...(warnings.length ? { warnings } : {}) };
  } catch (err) {
    // A refused allocation goes up as it is: the sandbox reports it as the memory limit.
    throw isAllocationFailure(err) ? err : toSourceError(err);
  } finally {
    await task?.destroy().catch(() => undefined);
  }
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
