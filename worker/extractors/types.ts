import type { SourceFormat } from '../../shared/formats.js';

/** Limits and hints for one extraction. */
export interface ExtractOptions {
  /** Original file name; only tells Markdown from plain text. */
  filename?: string;
  /** Content type the client declared; only tells Markdown from plain text. */
  declaredType?: string;
  /** Longer text is cut to this many UTF-16 code units and marked `truncated`. */
  maxTextChars: number;
  /** PDF pages after this many are not read; the result is marked `truncated`. */
  maxPdfPages: number;
  /** DOCX: refuse (`too_complex`) when the parts declare more than this many bytes unpacked. Default 256 MiB. */
  maxDocxUnpackedBytes?: number;
  /** HTML: refuse (`too_complex`) when elements nest deeper than this. Default 4096. */
  maxHtmlDepth?: number;
}

/** Clean text of one document and what was learned about it. */
export interface Extraction {
  text: string;
  /** HTML `<title>`, PDF Info Title or DOCX `dc:title`, when present. */
  title?: string;
  /** Pages in the document (PDF only), including pages past `maxPdfPages`. */
  pageCount?: number;
  /** True when pages or text were left out because of the limits. */
  truncated: boolean;
  format: SourceFormat;
  mimeType: string;
}

/** What one format's extractor returns before normalization and limits. */
export interface RawExtraction {
  text: string;
  title?: string;
  pageCount?: number;
  truncated?: boolean;
}
