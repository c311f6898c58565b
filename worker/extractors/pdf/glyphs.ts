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

// TeX draws an accent as a glyph of its own before the letter it sits on; pdf.js reads it as a spacing accent.
export const COMBINING: Record<string, string> = {
  '\u00a8': '\u0308', '\u00b4': '\u0301', '\u02cb': '\u0300', '\u02c6': '\u0302', '\u02dc': '\u0303', '\u02c7': '\u030c',
  '\u02d8': '\u0306', '\u02d9': '\u0307', '\u02da': '\u030a', '\u02dd': '\u030b', '\u00af': '\u0304',
};
const SPACING_ACCENT = /[\u00a8\u00b4\u02cb\u02c6\u02dc\u02c7\u02d8\u02d9\u02da\u02dd\u00af]/u;
// An accent right before a letter is that letter's; so is one a single space away from a lower-case letter
// after a letter ("M¨ obius"; pdf.js may read "Math ´ematiques" from an accent drawn a little to the left).
const ACCENT_BEFORE = /([\u00a8\u00b4\u02cb\u02c6\u02dc\u02c7\u02d8\u02d9\u02da\u02dd\u00af])(\p{L})|(?<=\p{L})(?: ([\u00a8\u00b4\u02cb\u02c6\u02dc\u02c7\u02d8\u02d9\u02da\u02dd\u00af])|([\u00a8\u00b4\u02cb\u02c6\u02dc\u02c7\u02d8\u02d9\u02da\u02dd\u00af]) )(\p{Ll})/gu;

/**
 * Puts spacing accents drawn as glyphs of their own back on their letter
 * ("Math´ematiques" → "Mathématiques", "M¨ obius" → "Möbius"), as pdftotext
 * does; an accent with no letter of its own (math, "a ¯") stays.
 */
export function composeAccents(text: string): string {
  if (!SPACING_ACCENT.test(text)) return text;
  return text.replace(ACCENT_BEFORE, (_m, a1?: string, l1?: string, a2?: string, a3?: string, l2?: string) => {
    const letter = (l1 ?? l2)!;
    // TeX puts an accent on a dotless i.
    return ((letter === '\u0131' ? 'i' : letter) + COMBINING[(a1 ?? a2 ?? a3)!]!).normalize('NFC');
  });
}

// The TeX and LaTeX logos lower the E and raise a small A, so they come out in pieces.
const TEX_LOGO = /\b(?:L ?A ?T ?E ?X|T ?E ?X)\b/g;

/** "L ATEX" → "LaTeX", "T EX" → "TeX", so a search for the name finds it; a logo read whole is left as it is. */
export function joinTexLogos(text: string): string {
  if (!text.includes('X')) return text;
  return text.replace(TEX_LOGO, (logo) => (!logo.includes(' ') ? logo : logo.startsWith('L') ? 'LaTeX' : 'TeX'));
}
