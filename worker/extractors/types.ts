import type { SourceFormat } from '../../shared/formats/formats.js';
import type { CutChunk as Chunk } from '../../shared/schemas/chunk.js';
import type { SourceProgress } from '../../shared/schemas/knowledge-base.js';
import type { OcrSettings } from './pdf/ocr/settings.js';
import type { PageSharing } from './pdf/split-read.js';
import type { ExtractionWarning } from './warning.js';

/** Limits and hints for one extraction. */
export interface ExtractOptions {
  /** Original file name; only tells Markdown from plain text. */
  filename?: string;
  /** Content type the client declared; only tells Markdown from plain text. */
  declaredType?: string;
  /** The deployment's format policy (`ACCEPTED_FORMATS`); default the contract's five. */
  acceptedFormats?: readonly SourceFormat[];
  /** Longer text is cut to this many UTF-16 code units and marked `truncated`; a PDF's pages after the one where its text passes this are not read. */
  maxTextChars: number;
  /** PDF pages after this many are not read; the result is marked `truncated`. */
  maxPdfPages: number;
  /** OCR of scanned PDF pages and of images; absent, nothing is OCR'd (see `OcrSettings`). */
  ocr?: OcrSettings;
  /** DOCX: refuse (`too_complex`) when the parts declare more than this many bytes unpacked. Default 256 MiB. */
  maxDocxUnpackedBytes?: number;
  /** HTML: refuse (`too_complex`) when elements nest deeper than this. Default 4096. */
  maxHtmlDepth?: number;
  /**
   * Told how far the extraction has got (PDF: after each page). Set by the
   * sandbox child, never sent over IPC.
   */
  onProgress?: (progress: SourceProgress) => void;
  /**
   * PDF: how page ranges of a long document may be handed to other sandbox
   * children. Set by the sandbox child, never sent over IPC.
   */
  pdfSharing?: PageSharing;
  /** When set, the Markdown is also split into {@link Extraction.chunks}. */
  chunking?: ChunkingOptions;
  /**
   * The bytes are Markdown already stored (UTF-8): nothing is extracted, it is
   * only cut into chunks with `chunking` (a re-chunk), off the worker's event
   * loop. `pageStarts` as the extraction gave them, for PDF pages; `title`,
   * a text source's, as the root of the heading paths; `plainText`, a TXT
   * file's or page's text, whose headings are found as plain text's.
   */
  cutOnly?: { pageStarts?: readonly number[]; title?: string; plainText?: boolean };
}

/** How the Markdown is split for retrieval (the service defaults are 512 and 0). */
export interface ChunkingOptions {
  /** No chunk holds more tokens (cl100k_base) than this. */
  maxTokens: number;
  /** Tokens of the previous chunk's tail repeated at the start of the next; 0 for none. */
  overlapTokens: number;
}

export type { ExtractionWarning } from './warning.js';

/** Clean text of one document and what was learned about it. */
export interface Extraction {
  /** The canonical extraction: Markdown keeping the structure the format shows. */
  markdown: string;
  /** Plain text (the API's `text` field): the extractor's own where it reads one (PDF, HTML, tables), else read from `markdown`. */
  text: string;
  /** HTML `<title>`, PDF Info Title, DOCX `dc:title` or a Markdown file's first `#` heading, when present. */
  title?: string;
  /** Pages in the document (PDF only), including pages past `maxPdfPages`. */
  pageCount?: number;
  /**
   * PDF only: `pageStarts[i]` is the UTF-16 index in `markdown` where page
   * `i + 1` begins (pages without text start where the next one does).
   */
  pageStarts?: number[];
  /** True when pages or text were left out because of the limits. */
  truncated: boolean;
  /** Doubts about the text of a document that is still usable. */
  warnings?: ExtractionWarning[];
  /** The Markdown split for retrieval, when {@link ExtractOptions.chunking} was given. */
  chunks?: Chunk[];
  format: SourceFormat;
  mimeType: string;
}

/**
 * What one format's extractor returns before normalization and limits:
 * either `markdown` for the whole document, or (PDF) `pages`, one Markdown
 * string per page read, which the caller joins with blank lines.
 */
export interface RawExtraction {
  markdown?: string;
  /** Plain text read from the same parse as `markdown` (for `pages`, of all pages), when the extractor has it at no extra cost. */
  text?: string;
  pages?: string[];
  title?: string;
  pageCount?: number;
  truncated?: boolean;
  warnings?: ExtractionWarning[];
}

/**
 * One format's extractor, the `extract` export of its folder's `index.ts`:
 * bytes in, raw Markdown (or pages) out; `extractText` then normalizes,
 * applies the limits and adds the warnings every format shares.
 */
export type FormatExtractor = (bytes: Uint8Array, opts: ExtractOptions) => Promise<RawExtraction>;
