import type { FormatExtractor } from '../types.js';
import { extractOdt } from './odt.js';

/** ODT: headings, lists, tables and notes, as DOCX (see {@link extractOdt}). */
export const extract: FormatExtractor = (bytes, opts) => extractOdt(bytes, { maxUnpackedBytes: opts.maxDocxUnpackedBytes });
