import { COMBINING, type composeAccents } from './glyphs.js';
import type { Run } from './run.js';

/**
 * Accents drawn as glyphs of their own, put on the letter they sit over by
 * position: TeX and other typesetters draw "ˆ" over a "G" (or "¨" before an
 * "o") as a separate glyph, which the text order reads beside the letter
 * ("G ˆ"), and pdftotext leaves it so. Only a glyph whose middle lies over a
 * letter of the same line is moved: a caret or a tilde of code stands beside
 * its neighbours, never over them, and stays.
 */

// Spacing accents (and the ASCII grave, tilde and caret, which a font may map its accents to) → combining marks.
const ABOVE: Record<string, string> = { ...COMBINING, '`': '\u0300', '^': '\u0302', '~': '\u0303', '\u02c9': '\u0304', '\u00b8': '\u0327', '\u02db': '\u0328' };
// The same glyphs drawn under the letter.
const BELOW: Record<string, string> = { '\u00af': '\u0331', '\u02c9': '\u0331', '\u00b8': '\u0327', '\u02db': '\u0328', '\u02d9': '\u0323' };
const MARK = /^[\u0300-\u036f]$/u;
// A superscript a or o with a bar under it is the ordinal indicator of Spanish, Portuguese and Italian ("1.ª").
const ORDINAL: Record<string, string> = { a: '\u00aa', o: '\u00ba' };

// An accent drawn first in an item that goes on after a space: its middle lies about this far into the item.
const LEADING_MIDDLE_EM = 0.2;

/**
 * The accent a run is made of (`whole`), or starts with before a space (pdf.js
 * joins "ˆ" with the words after it when they follow on); an accent right
 * before a letter of its own item is left to {@link composeAccents}.
 */
function accentOf(run: Run): { accent: string; whole: boolean } | undefined {
  const c = run.str.trimStart()[0];
  if (c === undefined || (ABOVE[c] === undefined && BELOW[c] === undefined && !MARK.test(c))) return undefined;
  const rest = run.str.trimStart().slice(1);
  if (rest.trim() === '') return { accent: c, whole: true };
  return rest.startsWith(' ') ? { accent: c, whole: false } : undefined;
}

/**
 * Puts each run that is a lone accent (or combining mark), or starts with
 * one before a space, on the letter of another run of the line under or
 * over its middle. Runs without such an accent are returned as they are.
 */
export function attachAccentRuns(runs: Run[]): Run[] {
  if (runs.length < 2 || !runs.some((r) => accentOf(r) !== undefined)) return runs;
  const main = runs.reduce((a, b) => (b.str.length > a.str.length ? b : a));
  const result = [...runs];
  for (let i = 0; i < result.length; i++) {
    const run = result[i]!;
    const found = accentOf(run);
    if (!found) continue;
    const { accent, whole } = found;
    const middle = whole ? (run.x0 + run.x1) / 2 : run.x0 + LEADING_MIDDLE_EM * run.size;
    const target = letterUnder(result, i, middle, run.size);
    if (!target) continue;
    const base = result[target.run]!;
    const letter = base.str[target.index]!;
    const below = run.y < base.y - 0.25 * base.size;
    const mark = MARK.test(accent) ? accent : below ? BELOW[accent] : ABOVE[accent];
    if (!mark) continue;
    const ordinal = below && mark === '\u0331' && ORDINAL[letter] && base.size < 0.9 * main.size && base.y > main.y + 0.2 * main.size;
    const composed = ordinal ? ORDINAL[letter]! : ((letter === '\u0131' ? 'i' : letter) + mark).normalize('NFC');
    result[target.run] = { ...base, str: base.str.slice(0, target.index) + composed + base.str.slice(target.index + 1) };
    if (whole) {
      result.splice(i, 1);
      i--;
    } else {
      result[i] = { ...run, str: run.str.trimStart().slice(1) };
    }
  }
  return result;
}

/**
 * The run (other than the accent's own, `skip`) of a size near `size` with a
 * letter under `x`, and that letter's index: glyph widths inside a run are
 * taken as even, so in a run of several letters the estimate is kept only
 * where it lands on a letter.
 */
function letterUnder(runs: Run[], skip: number, x: number, size: number): { run: number; index: number } | undefined {
  let best: { run: number; index: number; distance: number } | undefined;
  runs.forEach((r, k) => {
    // A glyph of another size over a letter (a big operator, a rule) is no accent of it.
    if (k === skip || accentOf(r)?.whole || x < r.x0 || x > r.x1 || Math.abs(r.size - size) > 0.5 * Math.max(r.size, size)) return;
    // A space read after the item (see `lines.ts`) takes no width of its own.
    const lead = r.str.length - r.str.trimStart().length;
    const chars = r.str.trim().length;
    const width = (r.x1 - r.x0) / chars;
    const at = Math.min(chars - 1, Math.floor((x - r.x0) / width));
    const index = lead + at;
    if (!/\p{L}/u.test(r.str[index]!)) return;
    const distance = Math.abs(x - (r.x0 + (at + 0.5) * width));
    if (!best || distance < best.distance) best = { run: k, index, distance };
  });
  return best && { run: best.run, index: best.index };
}
