/**
 * How a document is read by OCR, as the worker hands it to the sandbox child
 * (plain data: it crosses IPC). Without these settings nothing is OCR'd.
 */
export interface OcrSettings {
  /** Absolute path of `tesseract`; absent when this worker has none (then {@link unavailable} says why). */
  binary?: string;
  /** Absolute path of poppler's `pdftoppm`, which renders PDF pages for OCR when present; otherwise pdf.js on a canvas does. */
  renderer?: string;
  /** Absolute path of poppler's `pdfimages`, which tells how much of a page images cover without decoding them; otherwise pdf.js's operator list does. */
  imageLister?: string;
  /** Why OCR cannot run here; pages that need it fail the source as `ocr_unavailable` when nothing else is read. */
  unavailable?: string;
  /** Tesseract languages, `eng` or `eng+deu+fra` (`OCR_LANGUAGES`). */
  languages: string;
  /** Pages (of a PDF or a multi-page image) read by OCR at most per document (`OCR_MAX_PAGES`). */
  maxPages: number;
  /** One page's OCR is stopped after this long (`OCR_PAGE_TIMEOUT_MS`). */
  pageTimeoutMs: number;
  /**
   * OCR of a document stops starting pages after this long, so it ends with
   * the pages read before the sandbox's own time limit kills it. Default:
   * no budget beyond the per-page limit.
   */
  budgetMs?: number;
  /** Rendering resolution of PDF pages. Default 300. */
  dpi?: number;
}

/** Mean confidence (0–100) below which the `low_ocr_confidence` warning is added. */
export const LOW_CONFIDENCE = 70;
