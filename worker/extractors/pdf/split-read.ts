import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { PdfOcr } from './ocr/pdf-ocr.js';
import { charsRead, hasForm, joinReads, ocrPagesRead, readPages, splitPages, type PageRange, type PagesRead } from './read-pages.js';

/**
 * Hands page ranges of the document being read to other sandbox children:
 * one promise per range, `undefined` when no child was free for it or its
 * read failed (the caller then reads it itself).
 */
export type RangeReader = (ranges: PageRange[]) => Array<Promise<PagesRead | undefined>>;

/** How a document's pages may be shared out; see {@link readDocument}. */
export interface PageSharing {
  /** Ranges to cut the pages into: the pool's size. */
  parts: number;
  /** The file's size: the first range gets a head start for it (see {@link headStartPages}). */
  bytes?: number;
  readRanges: RangeReader;
}

/** Fewer pages than this are read by one child: opening the document again elsewhere would cost more than it saves. */
export const MIN_SHARED_PAGES = 24;

/**
 * Pages of head start per MB of the file: the other children start reading
 * only once the bytes were sent to them and they opened the document again,
 * which takes longer the larger the file (about 200 ms for a 24 MB map of 95
 * pages on a 2-core machine, as long as ~13 of its pages take to read), so
 * the first range, read here, is longer by that much and all ranges end
 * at about the same time. A text document of a few MB gets a page or two.
 */
export const HEAD_START_PAGES_PER_MB = 0.5;

/** How many more pages than each other range the first range of a document of `bytes` gets. */
export const headStartPages = (bytes: number): number => Math.round((bytes / 1024 / 1024) * HEAD_START_PAGES_PER_MB);

/**
 * Reads pages 1 to `count` of `doc`. With `sharing` and at least
 * {@link MIN_SHARED_PAGES} pages, the pages are cut into ranges: this
 * process reads the first (longer by {@link headStartPages} of `sharing.bytes`),
 * other children read the rest at the same time,
 * and any range no child took is read here after. The result is the one a
 * single pass gives: pages in order, none after the one where the text
 * passes `maxChars`. With `ocr`, pages that need it are read by OCR here,
 * those of lent ranges too (other children read text layers only).
 */
export async function readDocument(
  doc: PDFDocumentProxy,
  count: number,
  maxChars: number,
  sharing?: PageSharing,
  onProgress?: (progress: { pagesDone: number; pagesTotal: number }) => void,
  ocr?: PdfOcr,
): Promise<PagesRead> {
  const withForm = await hasForm(doc);
  let done = 0;
  const tell = (pages: number) => {
    done += pages;
    onProgress?.({ pagesDone: done, pagesTotal: count });
  };
  const ranges = sharing && sharing.parts > 1 && count >= MIN_SHARED_PAGES ? splitPages(count, sharing.parts, headStartPages(sharing.bytes ?? 0)) : [{ from: 1, to: count }];
  const lent = sharing && ranges.length > 1 ? sharing.readRanges(ranges.slice(1)) : [];
  for (const read of lent) void read.then((r) => r && tell(r.lines.length));
  const reads = [await readPages(doc, ranges[0]!, withForm, maxChars, () => tell(1), ocr)];
  let chars = charsRead(reads[0]!);
  for (let i = 1; i < ranges.length && chars <= maxChars; i++) {
    const borrowed = await lent[i - 1];
    const read = borrowed
      ? ocr ? await ocrPagesRead(doc, borrowed, ranges[i]!.from, ocr) : borrowed
      : await readPages(doc, ranges[i]!, withForm, maxChars, () => tell(1), ocr);
    reads.push(read);
    chars += charsRead(read);
  }
  return joinReads(reads, maxChars);
}

/** What a child asked for one range does: open the document and read those pages. */
export async function readRange(
  open: () => { promise: Promise<PDFDocumentProxy>; destroy(): Promise<void> },
  range: PageRange,
  maxChars: number,
): Promise<PagesRead> {
  const task = open();
  try {
    const doc = await task.promise;
    return await readPages(doc, { from: range.from, to: Math.min(range.to, doc.numPages) }, await hasForm(doc), maxChars);
  } finally {
    await task.destroy().catch(() => undefined);
  }
}
