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

/** The words of a text, lower-cased and in compatibility form, with their places. */
export function words(text: string): WordSpan[] {
  const out: WordSpan[] = [];
  // Word boundaries never cross ASCII white space, so each run between spaces is segmented alone:
  // an ASCII run by a scanner that follows UAX #29 (many times faster), any other by Intl.Segmenter.
  const runs = /[^ \t\n\r\f\v]+/g;
  for (let m = runs.exec(text); m; m = runs.exec(text)) {
    if (ASCII.test(m[0])) asciiWords(m[0], m.index, out);
    else segmentWords(m[0], m.index, out);
  }
  return out;
}

const ASCII = /^[\x21-\x7e]+$/;

function segmentWords(run: string, offset: number, out: WordSpan[]): void {
  for (const seg of segmenter.segment(run)) {
    if (!seg.isWordLike || seg.segment.length > MAX_WORD_LENGTH) continue;
    out.push({ word: seg.segment.normalize('NFKC').toLowerCase(), start: offset + seg.index, end: offset + seg.index + seg.segment.length });
  }
}

// UAX #29 classes of printable ASCII: ALetter, Numeric, ExtendNumLet ('_'), MidLetter (':'),
// MidNumLet ('.' and '\''), MidNum (',' and ';'); anything else breaks.
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isDigit = (c: number) => c >= 48 && c <= 57;
const isMidLetter = (c: number) => c === 58 || c === 46 || c === 39;
const isMidNum = (c: number) => c === 44 || c === 59 || c === 46 || c === 39;

/** The words of a run of printable ASCII, as Intl.Segmenter finds them (test/unit/tokenize.test.ts holds the two together). */
function asciiWords(run: string, offset: number, out: WordSpan[]): void {
  const n = run.length;
  let i = 0;
  while (i < n) {
    const c = run.charCodeAt(i);
    if (!isLetter(c) && !isDigit(c) && c !== 95) {
      i++;
      continue;
    }
    const start = i;
    i++;
    while (i < n) {
      const d = run.charCodeAt(i);
      if (isLetter(d) || isDigit(d) || d === 95) {
        i++;
        continue;
      }
      const prev = run.charCodeAt(i - 1);
      const next = i + 1 < n ? run.charCodeAt(i + 1) : 0;
      if ((isMidLetter(d) && isLetter(prev) && isLetter(next)) || (isMidNum(d) && isDigit(prev) && isDigit(next))) {
        i += 2;
        continue;
      }
      break;
    }
    // ICU calls a lone '_' no word, and any longer run one.
    if (i - start <= MAX_WORD_LENGTH && !(i - start === 1 && c === 95)) out.push({ word: run.slice(start, i).toLowerCase(), start: offset + start, end: offset + i });
  }
}

/** How often each term occurs in `text`. */
export function termCounts(text: string, stem: Stem): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { word } of words(text)) {
    const term = stem(word);
    counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  return counts;
}
