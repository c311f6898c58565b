import type { FormatExtractor } from '../types.js';
import { extractPdf } from './extract-pdf.js';
import { openPdf } from './open-pdf.js';
import type { PageRange, PagesRead } from './read-pages.js';
import { readRange } from './split-read.js';

export type { PageRange, PagesRead } from './read-pages.js';

/** PDF: one Markdown string per page read, rebuilt from the positions of its text (see {@link extractPdf}); OCR where `opts.ocr` allows. */
export const extract: FormatExtractor = (bytes, opts) => extractPdf(bytes, opts.maxPdfPages, opts.onProgress, opts.maxTextChars, opts.ocr, opts.pdfSharing);

/** One range of a PDF's pages, read for the child that extracts the document (see `split-read.ts`). */
export const readPdfRange = (bytes: Uint8Array, range: PageRange, maxChars: number): Promise<PagesRead> =>
  readRange(() => openPdf(bytes), range, maxChars);
