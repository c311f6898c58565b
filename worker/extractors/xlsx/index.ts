import type { FormatExtractor } from '../types.js';
import { extractXlsx } from './xlsx.js';

/** XLSX and XLSM: one section per sheet, the used range as a table (see {@link extractXlsx}). */
export const extract: FormatExtractor = (bytes, opts) => extractXlsx(bytes, { maxUnpackedBytes: opts.maxDocxUnpackedBytes, maxTextChars: opts.maxTextChars });
