import { decodeText } from '../../text-decode.js';
import type { RawExtraction } from '../types.js';

/** Plain text: decoded (BOM, UTF-8, UTF-16 or a checked single-byte guess) and kept as it is. */
export async function extractTxt(bytes: Uint8Array): Promise<RawExtraction> {
  return { markdown: decodeText(bytes).text };
}
