import type { FormatExtractor } from '../types.js';
import { extractPptx } from './pptx.js';

/** PPTX: one section per slide, notes under it (see {@link extractPptx}). */
export const extract: FormatExtractor = (bytes, opts) => extractPptx(bytes, { maxUnpackedBytes: opts.maxDocxUnpackedBytes, maxTextChars: opts.maxTextChars });
