import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { SourceError } from '../../../../shared/source-errors.js';
import type { ExtractionWarning } from '../../warning.js';
import { pageLines, type PdfLine } from '../lines.js';
import { garbledPages } from '../quality.js';
import { listImageAreas } from './image-list.js';
import { needsPaintEvidence, ocrReason, paintEvidence, type OcrReason } from './needs-ocr.js';
import { ocrTextItems } from './ocr-lines.js';
import { OcrTally } from './ocr-tally.js';
import { renderWithPdftoppm } from './pdftoppm.js';
import { renderPage } from './render-page.js';
import type { OcrSettings } from './settings.js';
import { recognize } from './tesseract.js';

const DEFAULT_DPI = 300;

/**
 * The OCR fallback of one PDF extraction. The extractor hands it each page
 * with the lines of its text layer; a page that needs OCR (see `ocrReason`)
 * is rendered and read by Tesseract, and its words come back as lines for
 * the same page rebuild as a text layer's. Pages are read in order until
 * `maxPages` pages or the time budget are used up; the rest are named in
 * a `partial_text` warning.
 */
export class PdfOcr {
  readonly tally: OcrTally;
  private readonly startedAt = Date.now();
  private imageAreas?: Promise<Map<number, number> | undefined>;

  /** `pdf` is the document's bytes, for `pdftoppm` when the settings name it. */
  constructor(private readonly settings: OcrSettings, private readonly pdf: Uint8Array) {
    this.tally = new OcrTally(settings);
  }

  /** The lines page `n` is read as: its text layer's, or OCR's when it needs OCR and OCR found more. */
  async readPage(page: PDFPageProxy, n: number, layer: PdfLine[]): Promise<PdfLine[]> {
    const reason = await this.reasonFor(page, n, layer);
    if (!reason) return layer;
    const budget = this.remainingMs();
    if (!this.settings.binary || this.tally.used >= this.settings.maxPages || budget <= 0) {
      this.tally.notRead(n);
      return layer;
    }
    const words = await this.recognizePage(page, n, Math.min(this.settings.pageTimeoutMs, budget));
    if (!words) return layer;
    const found = words.lines.reduce((sum, l) => sum + letters(l.text), 0);
    // A caption under a photograph is a good text layer: OCR wins only where the layer said nothing or nonsense.
    if (reason === 'sparse_text' && found <= letters(layer.map((l) => l.text).join(' '))) return layer;
    this.tally.readAs(n, found ? words.words : []);
    return words.lines;
  }

  /** `ocr`, `low_ocr_confidence` and `partial_text` warnings for what was and was not read. */
  warnings(): ExtractionWarning[] {
    return this.tally.warnings();
  }

  /** The source's failure when nothing at all could be read. */
  emptyError(): SourceError | undefined {
    return this.tally.emptyError();
  }

  private async reasonFor(page: PDFPageProxy, n: number, layer: PdfLine[]): Promise<OcrReason | undefined> {
    const text = layer.map((l) => l.text).join('\n');
    const evidence = { letters: letters(text), garbled: garbledPages([text]).length > 0 };
    if (!needsPaintEvidence(evidence)) return ocrReason(evidence);
    // Images that cover enough of the page decide alone; building the operator list would decode them
    // (a third of Tesseract's time on a scanned page). Otherwise the paths drawn are needed too.
    const imageShare = await this.listedImageShare(page, n);
    const byImages = imageShare === undefined ? undefined : ocrReason(evidence, { imageShare, pathWeight: 0 });
    if (byImages) return byImages;
    const ops = await page.getOperatorList().catch(() => undefined);
    return ocrReason(evidence, ops && paintEvidence(ops, page.view));
  }

  /** Share of page `n` covered by images as `pdfimages -list` tells it (one listing per document), or undefined. */
  private async listedImageShare(page: PDFPageProxy, n: number): Promise<number | undefined> {
    const { imageLister, pageTimeoutMs } = this.settings;
    if (!imageLister) return undefined;
    this.imageAreas ??= listImageAreas(imageLister, this.pdf, pageTimeoutMs);
    const area = (await this.imageAreas)?.get(n) ?? 0;
    const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = page.view;
    const share = area / (Math.abs((x1 - x0) * (y1 - y0)) || 1);
    return Number.isFinite(share) ? Math.min(1, share) : undefined;
  }

  private async recognizePage(page: PDFPageProxy, n: number, timeoutMs: number) {
    const { binary, languages } = this.settings;
    try {
      const dpi = this.settings.dpi ?? DEFAULT_DPI;
      const { renderer } = this.settings;
      const image = renderer ? await renderWithPdftoppm(renderer, this.pdf, page, dpi, timeoutMs) : await renderPage(page, dpi);
      const words = await recognize(image.pgm, { binary: binary!, languages, timeoutMs, dpi: Math.round(image.scale * 72) });
      const view = [0, 0, image.width / image.scale, image.height / image.scale];
      return { lines: pageLines(ocrTextItems(words, image), view), words };
    } catch (err) {
      // A missing language fails the source; a page Tesseract could not finish is named in partial_text.
      if (err instanceof SourceError && err.code === 'ocr_unavailable') throw err;
      if (err instanceof SourceError) {
        this.tally.failed(n);
        return undefined;
      }
      throw err;
    }
  }

  private remainingMs(): number {
    return this.settings.budgetMs === undefined ? Number.POSITIVE_INFINITY : this.settings.budgetMs - (Date.now() - this.startedAt);
  }
}

const letters = (text: string) => text.replace(/[^\p{L}\p{N}]+/gu, '').length;
