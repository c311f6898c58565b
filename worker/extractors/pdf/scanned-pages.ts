import { documentStyle, joinPagesAtHyphens, pageMarkdown, type PageText } from './blocks.js';
import { pageLines } from './lines.js';
import { ocrTextItems } from './ocr/ocr-lines.js';
import type { OcrWord } from './ocr/tesseract.js';
import type { PdfLine } from './pdf-line.js';

/**
 * What a reader of scanned pages that are no PDF (image files) takes from the
 * PDF extractor: OCR and its tally, the lines of a page from its words, and
 * the pages' Markdown from their lines, as a scanned PDF page would be read.
 */

export { OcrTally } from './ocr/ocr-tally.js';
export type { OcrSettings } from './ocr/settings.js';
export { recognize } from './ocr/tesseract.js';
export type { PdfLine };

/** The lines of one scanned page from its OCR words: an image of `width` × `height` px at `scale` px per point. */
export function scannedPageLines(words: OcrWord[], image: { width: number; height: number; scale: number }): PdfLine[] {
  return pageLines(ocrTextItems(words, image), [0, 0, image.width / image.scale, image.height / image.scale]);
}

/** The pages' Markdown and text: headings told by line height across the document, a word split at a page's end joined. */
export function scannedPagesMarkdown(pages: PdfLine[][]): PageText[] {
  const style = documentStyle(pages);
  return joinPagesAtHyphens(pages.map((page) => pageMarkdown(page, style)), style.vocabulary);
}
