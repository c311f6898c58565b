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
  readRanges: RangeReader;
}

/** Fewer pages than this are read by one child: opening the document again elsewhere would cost more than it saves. */
export const MIN_SHARED_PAGES = 24;

/**
 * Reads pages 1 to `count` of `doc`. With `sharing` and at least
 * {@link MIN_SHARED_PAGES} pages, the pages are cut into ranges: this
 * process reads the first, other children read the rest at the same time,
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
  const ranges = sharing && sharing.parts > 1 && count >= MIN_SHARED_PAGES ? splitPages(count, sharing.parts) : [{ from: 1, to: count }];
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
