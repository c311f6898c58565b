// TeX fonts without a Unicode map put ligatures and quotes at control-character codes, which
// pdf.js passes through and normalization would drop, losing the "fi" of "configuration".
// T1 (Cork) encoding: 0x1B–0x1F are ff, fi, fl, ffi, ffl; OT1: 0x0B–0x0F are the same.
const LIGATURES: Record<string, string> = {
  '\u001b': 'ff', '\u001c': 'fi', '\u001d': 'fl', '\u001e': 'ffi', '\u001f': 'ffl',
  '\u000b': 'ff', '\u000c': 'fi', '\u000d': 'fl', '\u000e': 'ffi', '\u000f': 'ffl',
};

/**
 * Reads the control codes that TeX fonts use for ligatures (next to a
 * letter) and T1 quotes (0x10 opening before a word, 0x11 closing after
 * one) as the text they stand for.
 */
export function texControlCodes(str: string): string {
  if (!/[\u0000-\u001f]/.test(str)) return str;
  const codes = str.match(/[\u0000-\u001f]/g)!.length;
  // Many control codes in one string: a font of its own encoding, not TeX's; left alone.
  if (codes * 5 > str.length) return str;
  return str
    .replace(/(?<=\p{L})[\u000b-\u000f\u001b-\u001f](?![\u0000-\u001f])|(?<![\u0000-\u001f])[\u000b-\u000f\u001b-\u001f](?=\p{L})/gu, (c) => LIGATURES[c]!)
    .replace(/\u0010(?=[\p{L}\p{N}])/gu, '\u201c')
    .replace(/(?<=[\p{L}\p{N}.,!?])\u0011/gu, '\u201d');
}
