import type { FormatExtractor } from '../types.js';
import { extractDocx } from './extract-docx.js';

/** DOCX: checked for ZIP bombs, converted by mammoth, written as Markdown (see {@link extractDocx}). */
export const extract: FormatExtractor = (bytes, opts) => extractDocx(bytes, opts.maxDocxUnpackedBytes);
