import { attachAccentRuns } from './accents.js';
import { composeAccents, joinTexLogos, texControlCodes } from './glyphs.js';
import type { Run } from './run.js';

/**
 * Words from glyphs: a pdf.js text item turned into a run in its own text
 * frame, and runs of one line joined with a space only where the gap is one.
 */

/** A pdf.js text item, as far as layout needs it. */
export interface PdfTextItem {
  str: string;
  /** Text matrix [a, b, c, d, e, f] in page space. */
  transform: number[];
  width: number;
  height: number;
  /** True for fonts written top to bottom (CJK vertical writing). */
  vertical?: boolean;
  /** pdf.js's reading of the direction of the text. */
  dir?: string;
  /** Set in a bold font (see `fonts.ts`). */
  bold?: boolean;
}

export type { Run } from './run.js';

// A gap wider than this share of the font size is a space: word spaces are about a third
// of an em and shrink to a fifth in justified lines; letter spacing and kerning stay below.
const SPACE_GAP = 0.17;
// Runs overlapping by more than this share of the font size do not continue each other.
const OVERLAP_GAP = 0.5;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]/u;

/** Cosine and sine of each quarter turn. */
export const COS = [1, 0, -1, 0];
export const SIN = [0, 1, 0, -1];

/** The direction of the text, in quarter turns; vertical writing counts as a turn downwards. */
export function orientation(item: PdfTextItem): number {
  if (item.vertical) return 3;
  const [a = 1, b = 0] = item.transform;
  return ((Math.round(Math.atan2(b, a) / (Math.PI / 2)) % 4) + 4) % 4;
}

/** The item in its own text frame: x along the line, y across it (upwards). */
export function toRun(item: PdfTextItem): Run | undefined {
  if (item.str.trim() === '') return undefined;
  const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = item.transform;
  const turn = orientation(item);
  const cos = COS[turn]!;
  const sin = SIN[turn]!;
  const size = Math.hypot(c, d) || Math.hypot(a, b) || item.height || 1;
  const x = e * cos + f * sin;
  const y = -e * sin + f * cos;
  const advance = item.vertical ? item.height : item.width;
  const read = texControlCodes(/\s\s|[^\S ]/.test(item.str) ? item.str.replace(/\s+/g, ' ') : item.str);
  const str = unspaceLetters(read);
  return { str, x0: x, x1: x + Math.max(0, advance), y, size, rtl: item.dir === 'rtl', ...(str !== read ? { letterSpaced: true } : {}), ...(item.bold ? { bold: true } : {}) };
}

/**
 * pdf.js puts a space into an item wherever glyphs are more than a tenth of
 * an em apart, so a letter-spaced word comes out as "t r e a t"; the gap
 * between two such words is wider and ends the item. An item made only of
 * single letters and such spaces is one word (an alphabet excepted).
 */
export function unspaceLetters(str: string): string {
  // Cheap refusal first: this runs for every item.
  if (str.length < 5 || (str[1] !== ' ' && str[2] !== ' ')) return str;
  const trimmed = str.trim();
  if (!/^\p{L}(?: \p{L}){2,}$/u.test(trimmed)) return str;
  const word = trimmed.replace(/ /g, '');
  const alphabet = [...word].every((c, i) => i === 0 || c.charCodeAt(0) === word.charCodeAt(i - 1) + 1);
  return alphabet ? str : str.replace(trimmed, word);
}

const TWO_LETTERS = /^\p{L} \p{L}$/u;

/**
 * A two-letter word of a letter-spaced line ("i n") is too short for
 * {@link unspaceLetters} to tell from two words; beside a letter-spaced run
 * of the same size, it is one word too.
 */
function joinShortSpacedWords(ordered: Run[]): void {
  ordered.forEach((run, i) => {
    if (!TWO_LETTERS.test(run.str.trim())) return;
    const spacedNeighbour = [ordered[i - 1], ordered[i + 1]].some((n) => n?.letterSpaced && Math.abs(n.size - run.size) < 0.1 * run.size);
    if (spacedNeighbour) ordered[i] = { ...run, str: run.str.replace(/(\p{L}) (\p{L})/u, '$1$2'), letterSpaced: true };
  });
}

/**
 * Joins runs in reading order (right to left when most of the text is
 * right-to-left): a space only where the gap is as wide as a space. Lone
 * accent glyphs are first put on the letter they sit over (`accents.ts`).
 */
export function joinRuns(lineRuns: Run[]): string {
  const runs = attachAccentRuns(lineRuns);
  const rtlChars = runs.reduce((n, r) => n + (r.rtl ? r.str.length : 0), 0);
  const rtl = rtlChars * 2 > runs.reduce((n, r) => n + r.str.length, 0);
  const ordered = runs.length === 1 ? runs : [...runs].sort(rtl ? (p, q) => q.x1 - p.x1 : (p, q) => p.x0 - q.x0);
  if (ordered.length > 1) joinShortSpacedWords(ordered);
  let text = '';
  let prev: Run | undefined;
  for (const run of ordered) {
    // Text drawn twice with a small offset (a fake bold) is read once.
    if (prev && run.str === prev.str && Math.abs(run.x0 - prev.x0) < 0.3 * run.size) continue;
    if (prev) {
      const gap = rtl ? prev.x0 - run.x1 : run.x0 - prev.x1;
      const spaced = text.endsWith(' ') || run.str.startsWith(' ');
      const cjk = CJK.test(text.slice(-1)) && CJK.test(run.str[0] ?? '');
      const em = Math.min(prev.size, run.size);
      // Far overlapping runs are different words drawn over each other (stacked legends, overprints).
      if (!spaced && !cjk && (gap > SPACE_GAP * em || gap < -OVERLAP_GAP * em)) text += ' ';
    }
    text += run.str;
    prev = run;
  }
  return joinTexLogos(composeAccents((text.includes('  ') ? text.replace(/ {2,}/g, ' ') : text).trim()));
}
