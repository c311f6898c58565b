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
  /** The gap before each space of `str` that pdf.js put between glyphs, in em; -1 for a space drawn as a character (see `worker-patches.ts`). */
  gaps?: number[];
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
  const joined = item.gaps && item.dir !== 'rtl' ? joinLettersByGaps(item.str, item.gaps) : undefined;
  const raw = joined ?? item.str;
  const read = texControlCodes(/\s\s|[^\S ]/.test(raw) ? raw.replace(/\s+/g, ' ') : raw);
  const str = joined === undefined ? unspaceLetters(read) : read;
  if (joined !== undefined && joined !== item.str) return { str, x0: x, x1: x + Math.max(0, advance), y, size, rtl: false, letterSpaced: true, ...(item.bold ? { bold: true } : {}) };
  const even = item.gaps && str === item.str && item.dir !== 'rtl' ? evenLetterGap(item.str, item.gaps) : undefined;
  if (even) return { str, x0: x, x1: x + Math.max(0, advance), y, size, rtl: false, letterGap: even.gap, ...(even.short ? { shortSpaced: true } : {}), ...(item.bold ? { bold: true } : {}) };
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

// Gaps of letter-spaced text: those between letters differ from those between words by this much (em) at least...
const GAP_SPREAD = 0.1;
// ...and a gap up to this share of the way from the narrowest to the widest is one between letters.
const LETTER_SHARE = 0.4;
// Letters are never spaced wider than this (em); a narrower word space is a justified line's.
const LETTER_GAP_MAX = 0.3;
// Gaps all of one size narrower than this (em) are letter spacing: a font's space is wider (Times 0.25 em, Helvetica 0.28).
const UNIFORM_LETTER_GAP = 0.22;
// Letters spaced evenly up to this (em) may be one word's, when the line's other words are spaced alike (pdf.js ends an item at 0.6 em).
const SPACED_LETTER_MAX = 0.4;

/**
 * An item whose words come out letter by letter ("r e a d t h e"), with
 * the gap of each space pdf.js put in (`gaps`, in em), read as pdftotext
 * does: most of its pieces are single characters, its gaps fall in two
 * sizes, and those of the smaller size (the letter spacing) are taken out,
 * those of the larger (the letter spacing and the font's own space) stay;
 * gaps all of one size narrower than a space are all between letters.
 * Undefined when the item does not read so: it is left to
 * {@link unspaceLetters}, which has no gaps to go by; a gap pdf.js measured
 * for a space drawn as a character (-1) always stays.
 */
export function joinLettersByGaps(str: string, gaps: number[]): string | undefined {
  const range = spacedGaps(str, gaps);
  if (!range) return undefined;
  const { low, high } = range;
  // Gaps of one size: all between letters when narrower than a space, else all between words.
  if ((high - low < GAP_SPREAD && high > UNIFORM_LETTER_GAP) || low > LETTER_GAP_MAX) return undefined;
  const most = high - low < GAP_SPREAD ? high : Math.min(LETTER_GAP_MAX, low + LETTER_SHARE * (high - low));
  // Words have letters: a row of single glyphs a few of which stand closer (a character table) is no letter-spaced text.
  let between = 0;
  let within = 0;
  for (const g of gaps) if (g >= 0 && g <= most) within++; else between++;
  return within >= WORD_LETTERS * between ? withoutSpaces(str, gaps, most) : undefined;
}

/**
 * The gap of an item of single letters spaced evenly, too wide for
 * {@link joinLettersByGaps} to call letter spacing by itself ("m a n u a l ,"
 * tracked by a quarter em, its words then items of their own): the line
 * tells, when the gaps between its items are wider still (see `joinRuns`).
 */
export function evenLetterGap(str: string, gaps: number[]): { gap: number; short: boolean } | undefined {
  const range = spacedGaps(str, gaps, 0);
  if (!range || range.high - range.low >= GAP_SPREAD || range.high > SPACED_LETTER_MAX) return undefined;
  return { gap: range.high, short: !spacedGaps(str, gaps) };
}

// Scripts whose words letter spacing can pull apart; elsewhere (CJK, Arabic) spaces between glyphs are left as pdf.js read them.
const SPACED_LETTER = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{N}]$/u;
const PUNCTUATION = /^[\p{P}\p{S}]+$/u;
const MIN_SPACED_LETTERS = 3;
// Gaps between letters of a word outnumber those between words this many times (words of two and a half letters on average).
const WORD_LETTERS = 1.5;

/**
 * The narrowest and widest gap of an item whose pieces between spaces are
 * mostly single letters, three at least (Latin, Greek, Cyrillic or digits; punctuation
 * pieces, such as a table of contents' dot leaders, are not counted), its
 * gaps one to a space; else undefined.
 */
function spacedGaps(str: string, gaps: number[], minLetters = MIN_SPACED_LETTERS): { low: number; high: number } | undefined {
  // Cheap refusal first, without a copy: this runs for every item with a space. Single letters make a space every other character, words one in five or six.
  if (gaps.length === 0 || gaps.length * 3 < str.length) return undefined;
  let singles = 0;
  let letters = 0;
  let words = 0;
  const pieces = str.split(' ');
  // The gaps stand beside the item's spaces one for one, or are not to be trusted.
  if (pieces.length - 1 !== gaps.length) return undefined;
  for (const piece of pieces) {
    if (piece === '' || PUNCTUATION.test(piece)) continue;
    if (SPACED_LETTER.test(piece)) {
      singles++;
      if (/\p{L}/u.test(piece)) letters++;
    }
    else if (piece.length > 1 && [...piece].some((ch) => SPACED_LETTER.test(ch))) words++;
    else return undefined;
  }
  // Two letters apart ("f s", "a 2 4") are as likely a formula's, which pdftotext keeps apart too.
  if (letters < minLetters || singles < 2 || words * 2 > singles) return undefined;
  let low = Infinity;
  let high = -Infinity;
  for (const g of gaps) {
    if (g < 0) continue;
    low = Math.min(low, g);
    high = Math.max(high, g);
  }
  return high >= low ? { low, high } : undefined;
}

/** `str` without the spaces whose gap is measured (not -1) and at most `most`. */
function withoutSpaces(str: string, gaps: number[], most: number): string {
  let out = '';
  let k = 0;
  for (const ch of str) {
    if (ch === ' ') {
      const g = gaps[k++]!;
      if (g >= 0 && g <= most) continue;
    }
    out += ch;
  }
  return out;
}

/**
 * Runs of evenly spaced single letters ({@link Run.letterGap}) set apart
 * from their neighbours on the line by gaps wider than their own by
 * {@link GAP_SPREAD} or more, on a line with another such run or a
 * letter-spaced word: a letter-spaced line whose words pdf.js read as items
 * of their own; each is one word.
 */
function joinSpacedRuns(ordered: Run[]): void {
  // One such run on a line is as likely a row of a character table; a letter-spaced line has more.
  let spaced = 0;
  for (const r of ordered) if (r.letterGap !== undefined || r.letterSpaced) spaced++;
  if (spaced < 2) return;
  const join = (short: boolean) => ordered.forEach((run, i) => {
    if (run.letterGap === undefined || !!run.shortSpaced !== short) return;
    const [before, after] = [ordered[i - 1], ordered[i + 1]];
    // A short one ("o f", "2 . 1") only beside a letter-spaced word: alone, it is as likely a formula's letters.
    if (short && !before?.letterSpaced && !after?.letterSpaced) return;
    const em = run.size;
    const apart = [before && (run.x0 - before.x1) / em, after && (after.x0 - run.x1) / em].filter((gap): gap is number => gap !== undefined);
    if (apart.length && apart.every((gap) => gap >= run.letterGap! + GAP_SPREAD)) {
      ordered[i] = { ...run, str: run.str.replace(/ (?=\S)/g, ''), letterSpaced: true, letterGap: undefined, shortSpaced: undefined };
    }
  });
  join(false);
  join(true);
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
  if (ordered.length > 1) joinSpacedRuns(ordered);
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
