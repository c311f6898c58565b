import type { FormatExtractor } from '../types.js';
import { extractCsv } from './csv.js';

/** CSV and TSV: delimiter and encoding detected, written as a GFM table (see {@link extractCsv}). */
export const extract: FormatExtractor = (bytes, opts) => extractCsv(bytes, undefined, opts.maxTextChars);
