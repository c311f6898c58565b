// Replacement characters, C1 controls, private-use and unassigned code points: what a wrong
// decoding or a font without a Unicode map leaves behind.
const GARBLED = /[\ufffd\u0080-\u009f\ue000-\uf8ff\p{Cn}]/gu;
const LETTERS = /[\p{L}\p{N}]/gu;
// Enough text to judge; counting a whole 5-million-character document would add nothing.
const SAMPLE_CHARS = 200_000;

/** True when garbage characters outnumber letters and digits in a text long enough to judge. */
export function looksGarbled(text: string): boolean {
  const sample = text.length > SAMPLE_CHARS ? text.slice(0, SAMPLE_CHARS) : text;
  const bad = sample.match(GARBLED)?.length ?? 0;
  if (bad < 20) return false;
  return bad > (sample.match(LETTERS)?.length ?? 0);
}
