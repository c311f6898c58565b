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
  for (const seg of segmenter.segment(text)) {
    if (!seg.isWordLike || seg.segment.length > MAX_WORD_LENGTH) continue;
    out.push({ word: seg.segment.normalize('NFKC').toLowerCase(), start: seg.index, end: seg.index + seg.segment.length });
  }
  return out;
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
