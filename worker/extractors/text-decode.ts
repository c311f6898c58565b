import { SourceError } from '../../shared/source-errors.js';
import { decodeBytes, isCleanText, normalizeName, sniffTextEncoding } from '../../shared/formats/text-encoding.js';

/** The decoded string and the encoding it was read with. */
export interface DecodedText {
  text: string;
  encoding: string;
}

// A statistical guess this sure beats a charset the page declares (Tika's misleading-charset case).
const TRUSTED_GUESS = 0.5;
const META_SCAN_BYTES = 4096;

/**
 * Decodes TXT, HTML or Markdown bytes: a byte-order mark wins, then valid
 * UTF-8, then (HTML only) the `<meta>` charset when it decodes the content
 * cleanly and the detector is not clearly sure of another one, then the
 * detector's guess. Throws `unsupported_media_type` for bytes that are not text.
 */
export function decodeText(bytes: Uint8Array, opts: { html?: boolean } = {}): DecodedText {
  const sniffed = sniffTextEncoding(bytes, true);
  if (!sniffed) throw new SourceError('unsupported_media_type', 'The file is not text in an encoding the service can read.');
  const body = bytes.subarray(sniffed.bomLength);
  if (opts.html && sniffed.source === 'guess') {
    const declared = normalizeName(declaredCharset(bytes));
    if (declared && declared !== sniffed.encoding && !/^utf-(?:8|16)/.test(declared)) {
      const text = decodeBytes(body, declared);
      if (sniffed.confidence < TRUSTED_GUESS && isCleanText(text)) return { text, encoding: declared };
    }
  }
  return { text: decodeBytes(body, sniffed.encoding), encoding: sniffed.encoding };
}

/**
 * The charset named by `<meta charset>` or `<meta http-equiv content="...; charset=">`
 * in the first few kilobytes, read as ASCII (what the HTML prescan does).
 */
export function declaredCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, META_SCAN_BYTES)).toString('latin1');
  for (const tag of head.match(/<meta\b[^>]*>/gi) ?? []) {
    const charset = /\bcharset\s*=\s*["']?\s*([\w.:-]+)/i.exec(tag)?.[1];
    if (charset) return charset;
  }
  return undefined;
}
