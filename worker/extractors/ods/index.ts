import type { FormatExtractor } from '../types.js';
import { extractOds } from './ods.js';

/** ODS: one section per sheet (see {@link extractOds}). */
export const extract: FormatExtractor = (bytes, opts) => extractOds(bytes, { maxUnpackedBytes: opts.maxDocxUnpackedBytes, maxTextChars: opts.maxTextChars });
