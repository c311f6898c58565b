import { SourceError } from '../../../../shared/source-errors.js';
import type { ExtractionWarning } from '../../warning.js';
import { pageList } from '../quality.js';
import { meanConfidence } from './ocr-lines.js';
import { LOW_CONFIDENCE, type OcrSettings } from './settings.js';
import type { OcrWord } from './tesseract.js';

/**
 * What OCR did for one document, page by page: read (with the confidence of
 * its words), found nothing, not read (past `OCR_MAX_PAGES` or the time
 * budget, or no engine here), or failed (its own time limit). Turns that
 * into the source's warnings, or its failure when nothing was read at all.
 */
export class OcrTally {
  /** Pages whose text came from OCR. */
  readonly read: number[] = [];
  private readonly blank: number[] = [];
  private readonly skipped: number[] = [];
  private readonly unfinished: number[] = [];
  private confidence = { sum: 0, weight: 0 };

  constructor(private readonly settings: OcrSettings) {}

  /** Page `n` was read by OCR as `words` (none: OCR found nothing on it). */
  readAs(n: number, words: OcrWord[]): void {
    if (words.length === 0) {
      this.blank.push(n);
      return;
    }
    this.read.push(n);
    const c = meanConfidence(words);
    this.confidence = { sum: this.confidence.sum + c.sum, weight: this.confidence.weight + c.weight };
  }

  /** Page `n` needs OCR but was not read (limit, time budget or no engine). */
  notRead(n: number): void {
    this.skipped.push(n);
  }

  /** OCR of page `n` was stopped at its time limit, or the engine could not read its image. */
  failed(n: number): void {
    this.unfinished.push(n);
  }

  /** Pages OCR has been run on, whatever it found: their text layer no longer says whether they are scans. */
  get attempted(): number[] {
    return [...this.read, ...this.blank].sort((a, b) => a - b);
  }

  /** True when page `n` needed OCR: it was read, found blank, not read or failed, and the warnings say so. */
  covers(n: number): boolean {
    return this.read.includes(n) || this.blank.includes(n) || this.skipped.includes(n) || this.unfinished.includes(n);
  }

  /** Pages counted against `OCR_MAX_PAGES`. */
  get used(): number {
    return this.read.length + this.blank.length + this.unfinished.length;
  }

  /** Mean confidence (0–100) of the words read, weighted by their length. */
  get meanConfidence(): number {
    return this.confidence.weight ? this.confidence.sum / this.confidence.weight : 0;
  }

  warnings(): ExtractionWarning[] {
    const warnings: ExtractionWarning[] = [];
    const mean = Math.round(this.meanConfidence);
    if (this.read.length) {
      const blank = this.blank.length ? `; it found no text on ${pageList(this.blank)}` : '';
      warnings.push({ code: 'ocr', message: `The text of ${pageList(this.read)} was read by OCR (Tesseract, ${this.settings.languages}; mean confidence ${mean}%)${blank}.` });
      if (mean < LOW_CONFIDENCE) {
        warnings.push({ code: 'low_ocr_confidence', message: `The OCR text has a mean confidence of ${mean}% (below ${LOW_CONFIDENCE}%): it may hold misread words.` });
      }
    }
    const missed = [...this.skipped, ...this.unfinished].sort((a, b) => a - b);
    if (missed.length) warnings.push({ code: 'partial_text', message: this.missedMessage(missed) });
    return warnings;
  }

  /** `ocr_unavailable` when the document needed OCR this worker cannot do, `no_text` when OCR ran and found nothing. */
  emptyError(): SourceError | undefined {
    if (!this.settings.binary && this.skipped.length) {
      return new SourceError('ocr_unavailable', `The document has no text layer and needs OCR, which this worker cannot do: ${this.settings.unavailable ?? 'no OCR engine'}.`);
    }
    if (this.attempted.length || this.unfinished.length) return new SourceError('no_text', `OCR found no text on ${pageList([...this.attempted, ...this.unfinished].sort((a, b) => a - b))}, and there is no text layer to read instead.`);
    return undefined;
  }

  private missedMessage(missed: number[]): string {
    if (!this.settings.binary) {
      return `${capitalize(pageList(missed))} need${missed.length === 1 ? 's' : ''} OCR, which this worker cannot do (${this.settings.unavailable ?? 'no OCR engine'}); only the other pages were read.`;
    }
    const read = this.read.length ? `OCR read ${pageList(this.read)}` : 'OCR read no page';
    const why = `OCR reads at most ${this.settings.maxPages} pages (OCR_MAX_PAGES) per document, each within ${this.settings.pageTimeoutMs} ms, within the extraction's time limit`;
    return `${read}; ${pageList(missed)} also need${missed.length === 1 ? 's' : ''} OCR and ${missed.length === 1 ? 'was' : 'were'} not read: ${why}.`;
  }
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
