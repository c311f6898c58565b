import type { FormatExtractor } from '../types.js';
import { extractEpub } from './epub.js';

/** EPUB: spine chapters in order through the HTML conversion (see {@link extractEpub}). */
export const extract: FormatExtractor = (bytes, opts) => extractEpub(bytes, { maxUnpackedBytes: opts.maxDocxUnpackedBytes, maxTextChars: opts.maxTextChars, ...(opts.maxHtmlDepth !== undefined && { maxHtmlDepth: opts.maxHtmlDepth }) });
