import { decodeText } from '../text-decode.js';
import type { FormatExtractor } from '../types.js';

/** Plain text: decoded (BOM, UTF-8, UTF-16 or a checked single-byte guess) and kept as it is. */
export const extract: FormatExtractor = async (bytes) => ({ markdown: decodeText(bytes).text });
