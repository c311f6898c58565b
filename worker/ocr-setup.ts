import type { Config } from '../shared/runtime/config.js';
import type { Logger } from '../shared/runtime/logger.js';
import { findImageLister, findOcrEngine, findPageRenderer } from './extractors/pdf/ocr/engine.js';
import type { OcrSettings } from './extractors/pdf/ocr/settings.js';

// OCR stops starting pages here, leaving the rest of EXTRACT_TIMEOUT_MS for the page under way and the rebuild.
const OCR_BUDGET_SHARE = 0.8;

/**
 * The OCR settings the worker's sandbox children get: undefined when
 * `OCR_ENABLED` is false. Looks for Tesseract and the languages of
 * `OCR_LANGUAGES` once, and says once what it found; without them OCR-needing
 * sources fail as `ocr_unavailable` (or name the pages not read).
 * `candidates` (test seam) are the paths tried for the binary.
 */
export async function ocrSettings(config: Config, logger: Logger, candidates?: string[]): Promise<OcrSettings | undefined> {
  if (!config.OCR_ENABLED) return undefined;
  const engine = await findOcrEngine(config.OCR_LANGUAGES, candidates);
  const settings = {
    languages: config.OCR_LANGUAGES,
    maxPages: config.OCR_MAX_PAGES,
    pageTimeoutMs: config.OCR_PAGE_TIMEOUT_MS,
    budgetMs: Math.floor(config.EXTRACT_TIMEOUT_MS * OCR_BUDGET_SHARE),
  };
  if ('unavailable' in engine) {
    logger.warn({ reason: engine.unavailable }, 'OCR is unavailable: scanned PDFs and images will fail as ocr_unavailable');
    return { ...settings, unavailable: engine.unavailable };
  }
  const renderer = findPageRenderer();
  const imageLister = findImageLister();
  logger.info({ engine: engine.version, languages: config.OCR_LANGUAGES, renderer: renderer ?? 'pdf.js', imageLister: imageLister ?? 'pdf.js' }, 'OCR ready');
  return { ...settings, binary: engine.binary, ...(renderer ? { renderer } : {}), ...(imageLister ? { imageLister } : {}) };
}
