import { SourceError } from '../../../shared/source-errors.js';
import { OcrTally, recognize, scannedPageLines, scannedPagesMarkdown, type OcrSettings, type PdfLine } from '../pdf/scanned-pages.js';
import type { ExtractOptions, RawExtraction } from '../types.js';
import { imageFrames } from './image-frames.js';

// Larger pages are refused before decoding: 64 Mpx of grey is 64 MB in Tesseract, four times that in colour.
const MAX_FRAME_PIXELS = 64 * 1024 * 1024;
// Images rarely say their resolution; text is laid out as if scanned at this one (only relative sizes matter).
const NOMINAL_SCALE = 300 / 72;

/**
 * An image file (PNG, JPEG, WebP, or TIFF of one or more pages) read by OCR,
 * page by page, each rebuilt as a PDF page's text would be (lines, columns,
 * paragraphs, headings by line height). At most `OCR_MAX_PAGES` pages are
 * read (the rest named in `partial_text`); a page over 64 Mpx is refused as
 * `too_complex`; without OCR here, `ocr_unavailable`.
 */
export async function extractImage(bytes: Uint8Array, opts: ExtractOptions): Promise<RawExtraction> {
  const ocr = usableOcr(opts.ocr);
  const frames = imageFrames(bytes);
  if (!frames) throw new SourceError('corrupt', 'The image is damaged: its header could not be read.');
  if (frames.some((f) => f.width * f.height > MAX_FRAME_PIXELS || f.width === 0 || f.height === 0)) {
    throw new SourceError('too_complex', `The image is larger than ${MAX_FRAME_PIXELS / 1024 / 1024} Mpx (or says it has no size) and was not read.`);
  }
  const tally = new OcrTally(ocr);
  const startedAt = Date.now();
  const lines: PdfLine[][] = [];
  for (const [i, frame] of frames.entries()) {
    const budget = (ocr.budgetMs ?? Number.POSITIVE_INFINITY) - (Date.now() - startedAt);
    if (i >= ocr.maxPages || budget <= 0) {
      tally.notRead(i + 1);
      lines.push([]);
      continue;
    }
    lines.push(await readFrame(frame, i + 1, ocr, Math.min(ocr.pageTimeoutMs, budget), tally));
    opts.onProgress?.({ pagesDone: i + 1, pagesTotal: Math.min(frames.length, ocr.maxPages) });
  }
  if (!tally.read.length) throw tally.emptyError() ?? new SourceError('no_text', 'OCR found no text in the image.');
  const pages = scannedPagesMarkdown(lines);
  const text = pages.map((p) => p.text).filter(Boolean).join('\n\n');
  return { pages: pages.map((p) => p.markdown), text, pageCount: frames.length, warnings: tally.warnings() };
}

async function readFrame(frame: { bytes: () => Uint8Array; width: number; height: number }, n: number, ocr: OcrSettings, timeoutMs: number, tally: OcrTally): Promise<PdfLine[]> {
  try {
    const words = await recognize(frame.bytes(), { binary: ocr.binary!, languages: ocr.languages, timeoutMs });
    tally.readAs(n, words.some((w) => /[\p{L}\p{N}]/u.test(w.text)) ? words : []);
    return scannedPageLines(words, { width: frame.width, height: frame.height, scale: NOMINAL_SCALE });
  } catch (err) {
    if (!(err instanceof SourceError) || err.code === 'ocr_unavailable') throw err;
    tally.failed(n);
    return [];
  }
}

function usableOcr(ocr: OcrSettings | undefined): OcrSettings & { binary: string } {
  if (!ocr) throw new SourceError('ocr_unavailable', 'Images are read by OCR, which is turned off on this deployment (OCR_ENABLED=false).');
  if (!ocr.binary) throw new SourceError('ocr_unavailable', `Images are read by OCR, which this worker cannot do: ${ocr.unavailable ?? 'no OCR engine'}.`);
  return { ...ocr, binary: ocr.binary };
}
