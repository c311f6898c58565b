import { createRequire } from 'node:module';
import iconv from 'iconv-lite';

// The detector is loaded by the first text that is neither UTF-8 nor marked: every sandbox
// child and the API detect types, few of them ever guess an encoding (its ES module build
// costs some 60 ms of CPU and 12 MB at start-up, its CommonJS build a third of the time).
let detector: typeof import('jschardet') | undefined;
const loadDetector = () => (detector ??= createRequire(import.meta.url)('jschardet') as typeof import('jschardet'));

/** How a run of bytes decodes to text, and how the guess was made. */
export interface TextEncoding {
  /** iconv-lite name, or `cp500` (decoded by a table here). */
  encoding: string;
  /** Bytes of byte-order mark to skip before decoding. */
  bomLength: number;
  /** `bom` and `utf-8` are certain; `guess` is statistical and may be overridden by a declared charset. */
  source: 'bom' | 'utf-8' | 'guess';
  /** Detector confidence (0..1); 1 for `bom` and `utf-8`. */
  confidence: number;
}

const BOMS: ReadonlyArray<readonly [readonly number[], string]> = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xff, 0xfe], 'utf-16le'],
  [[0xfe, 0xff], 'utf-16be'],
];

// The detector sees at most this much; its own default cap is 200 kB.
const DETECT_BYTES = 200_000;
const CHECK_CHARS = 65_536;
const MAX_CANDIDATES = 8;

// EBCDIC cp500 code points 0x40..0xFF; below 0x40 only the layout controls map to text.
const CP500_HIGH =
  ' \u00a0âäàáãåçñ[.<(+!&éêëèíîïìß]$*);^-/ÂÄÀÁÃÅÇÑ¦,%_>?øÉÊËÈÍÎÏÌ`:#@\'="Øabcdefghi«»ðýþ±°jklmnopqrªºæ¸Æ¤µ~stuvwxyz¡¿ÐÝÞ®¢£¥·©§¶¼½¾¬|¯¨´×{ABCDEFGHI\u00adôöòóõ}JKLMNOPQR¹ûüùúÿ\\÷STUVWXYZ²ÔÖÒÓÕ0123456789³ÛÜÙÚ\u009f';
const CP500_LOW: Record<number, string> = { 0x05: '\t', 0x0b: '\v', 0x0c: '\f', 0x0d: '\r', 0x15: '\n', 0x25: '\n' };

// WHATWG maps these labels to their supersets; real Latin-1 text never holds C1 controls.
const SUPERSETS: Record<string, string> = { 'iso-8859-1': 'windows-1252', ascii: 'windows-1252', 'iso-8859-9': 'windows-1254' };

/**
 * Finds how `bytes` decode to text: a byte-order mark, else valid UTF-8 without
 * NULs, else a statistical guess (jschardet) that must decode to clean text.
 * Returns undefined for bytes that are not text. With `complete` false the
 * bytes are a prefix, so a character cut at the end is tolerated.
 */
export function sniffTextEncoding(bytes: Uint8Array, complete: boolean): TextEncoding | undefined {
  const bom = detectBom(bytes);
  if (bom) {
    const text = decodeBytes(bytes.subarray(bom.length, bom.length + CHECK_CHARS * 2), bom.encoding);
    return isCleanText(text, { sample: true, literalFffd: true }) ? { encoding: bom.encoding, bomLength: bom.length, source: 'bom', confidence: 1 } : undefined;
  }
  if (bytes.includes(0)) return undefined;
  if (isUtf8(bytes, complete)) {
    const text = decodeBytes(bytes.subarray(0, CHECK_CHARS), 'utf-8');
    return isCleanText(text, { sample: true, literalFffd: true }) ? { encoding: 'utf-8', bomLength: 0, source: 'utf-8', confidence: 1 } : undefined;
  }
  return guessEncoding(bytes);
}

/**
 * Tries the detector's candidates best first. On short text the detector
 * often ranks a Cyrillic code page above Latin-1, which turns "Voilà" into
 * "Voilа"; a candidate whose words mix Latin with another script is skipped.
 */
function guessEncoding(bytes: Uint8Array): TextEncoding | undefined {
  const candidates = loadDetector().detectAll(bytes.subarray(0, DETECT_BYTES), { minimumThreshold: 0 }).slice(0, MAX_CANDIDATES);
  let fallback: TextEncoding | undefined;
  for (const candidate of candidates) {
    const encoding = normalizeName(candidate.encoding);
    if (!encoding) continue;
    // A multi-byte guess may cut a character at the sample's end.
    const text = decodeBytes(bytes.subarray(0, CHECK_CHARS), encoding);
    if (!isCleanText(text, { sample: true })) continue;
    const result: TextEncoding = { encoding, bomLength: 0, source: 'guess', confidence: candidate.confidence };
    if (!mixesScripts(text)) return result;
    fallback ??= result;
  }
  return fallback;
}

/** True when most words with non-ASCII letters mix Latin letters with another script (mojibake). */
function mixesScripts(text: string): boolean {
  let nonAscii = 0;
  let mixed = 0;
  for (const [word] of text.matchAll(/\p{L}+/gu)) {
    if (!/[^\x00-\x7f]/.test(word)) continue;
    nonAscii++;
    if (/\p{Script=Latin}/u.test(word) && /[^\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}]/u.test(word)) mixed++;
  }
  return mixed * 3 > nonAscii;
}

/** The encoding named by a leading byte-order mark (UTF-8, UTF-16LE, UTF-16BE), if any. */
export function detectBom(bytes: Uint8Array): { encoding: string; length: number } | undefined {
  for (const [bom, encoding] of BOMS) {
    if (bytes.length >= bom.length && bom.every((b, i) => bytes[i] === b)) return { encoding, length: bom.length };
  }
  return undefined;
}

/** Decodes with iconv-lite (or the cp500 table); invalid sequences become U+FFFD. */
export function decodeBytes(bytes: Uint8Array, encoding: string): string {
  if (encoding === 'cp500') return decodeCp500(bytes);
  return iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), encoding, { stripBOM: false });
}

/** Maps a charset label to a name `decodeBytes` accepts, or undefined when unknown. */
export function normalizeName(label: string | null | undefined): string | undefined {
  if (!label) return undefined;
  const name = label.trim().toLowerCase();
  if (name === 'cp500' || name === 'ibm500') return 'cp500';
  const mapped = SUPERSETS[name] ?? name;
  return iconv.encodingExists(mapped) ? mapped : undefined;
}

/**
 * True when `text` reads as text: no U+FFFD and at most 1% control characters
 * (C0 other than tab, line feed, vertical tab, form feed, carriage return, escape; DEL; C1).
 * `sample` allows one broken character at the very end (a cut prefix);
 * `literalFffd` counts U+FFFD as a control instead of a decoding failure (valid
 * UTF-8 may spell it out: the CommonMark spec does).
 */
export function isCleanText(text: string, opts: { sample?: boolean; literalFffd?: boolean } = {}): boolean {
  const body = opts.sample ? text.slice(0, -2) : text;
  let bad = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c === 0xfffd && !opts.literalFffd) return false;
    if (c === 0xfffd) bad++;
    if ((c < 0x20 && !(c >= 0x09 && c <= 0x0d) && c !== 0x1b) || (c >= 0x7f && c <= 0x9f)) bad++;
  }
  return bad * 100 <= body.length;
}

function isUtf8(bytes: Uint8Array, complete: boolean): boolean {
  const end = complete ? bytes.length : utf8CutPoint(bytes);
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, end));
    return true;
  } catch {
    return false;
  }
}

/** Where a prefix ends without a UTF-8 sequence cut in the middle. */
function utf8CutPoint(bytes: Uint8Array): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 4); i--) {
    const b = bytes[i] ?? 0;
    if ((b & 0xc0) === 0x80) continue;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return bytes.length - i < need ? i : bytes.length;
  }
  return bytes.length;
}

function decodeCp500(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b >= 0x40 ? CP500_HIGH[b - 0x40] : (CP500_LOW[b] ?? '\u0000');
  return out;
}
