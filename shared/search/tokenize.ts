/** The languages whose Snowball stemmers `@orama/stemmers` ships, by the name SEARCH_STEMMER takes. */
export const STEMMER_LANGUAGES = [
  'arabic', 'armenian', 'bulgarian', 'danish', 'dutch', 'english', 'finnish', 'french', 'german', 'greek', 'hungarian', 'indian',
  'indonesian', 'irish', 'italian', 'lithuanian', 'nepali', 'norwegian', 'portuguese', 'romanian', 'russian', 'sanskrit', 'serbian',
  'spanish', 'swedish', 'tamil', 'turkish', 'ukrainian',
] as const;

/** A stemmer, or `none` for words as they are (lower-cased). */
export type StemmerName = (typeof STEMMER_LANGUAGES)[number] | 'none';

/** Turns a lower-cased word into the term the index keeps. */
export type Stem = (word: string) => string;

/** A word of a text and where it is (JavaScript string indices). */
export interface WordSpan {
  word: string;
  start: number;
  end: number;
}

// Words as Unicode segments them (UAX #29 and dictionaries for languages written without spaces).
const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });
/** Longer "words" (base64, hashes) are not worth an entry of their own. */
const MAX_WORD_LENGTH = 40;

/** Loads the stemmer of `name`. */
export async function loadStemmer(name: StemmerName): Promise<Stem> {
  if (name === 'none') return (w) => w;
  const mod = (await import(`@orama/stemmers/${name}`)) as { stemmer: Stem };
  const cache = new Map<string, string>();
  return (w) => {
    let s = cache.get(w);
    if (s === undefined) {
      s = mod.stemmer(w);
      if (cache.size > 50_000) cache.clear();
      cache.set(w, s);
    }
    return s;
  };
}

/** Takes a word (lower-cased, in compatibility form) and where it is in the text. */
type Emit = (word: string, start: number, end: number) => void;
/** The same, but without the word when it is `text.slice(start, end).toLowerCase()`, for a caller that may not need the string. */
export type SpanEmit = (word: string | undefined, start: number, end: number) => void;

/** The words of a text, lower-cased and in compatibility form, with their places. */
export function words(text: string): WordSpan[] {
  const out: WordSpan[] = [];
  eachWord(text, (word, start, end) => out.push({ word, start, end }));
  return out;
}

/**
 * Gives each word of a text, in order, as words() finds them. Word boundaries
 * never cross ASCII white space, so each run between spaces is segmented
 * alone: a run of characters whose UAX #29 classes are known here (ASCII,
 * the Latin letters of Latin-1 and Latin Extended-A, curly apostrophes, and
 * punctuation that always breaks) by a scanner that follows UAX #29, many
 * times faster; any other run by Intl.Segmenter.
 */
export function eachWord(text: string, emit: Emit): void {
  eachWordSpan(text, (word, start, end) => emit(word ?? text.slice(start, end).toLowerCase(), start, end));
}

/** Gives each word of a text as eachWord does, without the word when the text holds it as it is but for case. */
export function eachWordSpan(text: string, emit: SpanEmit): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    if (i >= n) return;
    const start = i;
    let known = true;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (isSpace(c)) break;
      if (known && c > 0x7f && !isLatinLetter(c) && !isApostrophe(c) && !isBreak(c)) known = false;
    }
    if (known) scanWords(text, start, i, emit);
    else segmentWords(text.slice(start, i), start, emit);
  }
}

/** ASCII white space as the regular expression class `\s` of ASCII: space, tab, line feed, carriage return, form feed, vertical tab. */
const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);

function segmentWords(run: string, offset: number, emit: SpanEmit): void {
  for (const seg of segmenter.segment(run)) {
    if (!seg.isWordLike || seg.segment.length > MAX_WORD_LENGTH) continue;
    emit(seg.segment.normalize('NFKC').toLowerCase(), offset + seg.index, offset + seg.index + seg.segment.length);
  }
}

// UAX #29 classes of the characters the scanner takes: ALetter (ASCII letters and isLatinLetter), Numeric,
// ExtendNumLet ('_'), MidLetter (':'), MidNumLet ('.', '\'' and the curly apostrophes), MidNum (',' and ';');
// anything else (isBreak, other ASCII punctuation) breaks.
/** Latin-1 and Latin Extended-A letters other than those compatibility form changes (ĳ, ŀ, ŉ, ſ and their pairs). */
const isLatinLetter = (c: number) =>
  c >= 0xc0 && c <= 0x17f && c !== 0xd7 && c !== 0xf7 && c !== 0x132 && c !== 0x133 && c !== 0x13f && c !== 0x140 && c !== 0x149 && c !== 0x17f;
const isApostrophe = (c: number) => c === 0x2018 || c === 0x2019;
/** Characters of UAX #29's class Other that are no emoji: no-break space, replacement character, box drawing, quotation marks, dashes, ellipsis, bullet. */
const isBreak = (c: number) =>
  c === 0xa0 || c === 0xfffd || (c >= 0x2500 && c <= 0x257f) || c === 0x201c || c === 0x201d || c === 0xab || c === 0xbb || c === 0x2013 || c === 0x2014 || c === 0x2026 || c === 0x2022;
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || isLatinLetter(c);
const isDigit = (c: number) => c >= 48 && c <= 57;
const isMidLetter = (c: number) => c === 58 || c === 46 || c === 39 || isApostrophe(c);
const isMidNum = (c: number) => c === 44 || c === 59 || c === 46 || c === 39 || isApostrophe(c);

/** The words of text[from, to), a run of characters the scanner knows, as Intl.Segmenter finds them (test/unit/tokenize.test.ts holds the two together). */
function scanWords(text: string, from: number, to: number, emit: SpanEmit): void {
  let i = from;
  while (i < to) {
    const c = text.charCodeAt(i);
    if (!isLetter(c) && !isDigit(c) && c !== 95) {
      i++;
      continue;
    }
    const start = i;
    i++;
    while (i < to) {
      const d = text.charCodeAt(i);
      if (isLetter(d) || isDigit(d) || d === 95) {
        i++;
        continue;
      }
      const prev = text.charCodeAt(i - 1);
      const next = i + 1 < to ? text.charCodeAt(i + 1) : 0;
      if ((isMidLetter(d) && isLetter(prev) && isLetter(next)) || (isMidNum(d) && isDigit(prev) && isDigit(next))) {
        i += 2;
        continue;
      }
      break;
    }
    // ICU calls a lone '_' no word, and any longer run one.
    if (i - start <= MAX_WORD_LENGTH && !(i - start === 1 && c === 95)) emit(undefined, start, i);
  }
}

/** How often each term occurs in `text`. */
export function termCounts(text: string, stem: Stem): Map<string, number> {
  const counts = new Map<string, number>();
  eachWord(text, (word) => {
    const term = stem(word);
    counts.set(term, (counts.get(term) ?? 0) + 1);
  });
  return counts;
}
