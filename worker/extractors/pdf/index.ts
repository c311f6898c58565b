import type { FormatExtractor } from '../types.js';
import { extractPdf } from './extract-pdf.js';

/** PDF: one Markdown string per page read, rebuilt from the positions of its text (see {@link extractPdf}); OCR where `opts.ocr` allows. */
export const extract: FormatExtractor = (bytes, opts) => extractPdf(bytes, opts.maxPdfPages, opts.onProgress, opts.maxTextChars, opts.ocr);
