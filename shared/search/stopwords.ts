import type { StemmerName } from './tokenize.js';

/**
 * The stop words of a stemmer's language (`@orama/stopwords`, which has a
 * list for each language `@orama/stemmers` stems); none for `none`. Lower
 * case, compared with a word before it is stemmed.
 */
export async function loadStopWords(name: StemmerName): Promise<ReadonlySet<string>> {
  if (name === 'none') return new Set();
  const mod = (await import(`@orama/stopwords/${name}`)) as { stopwords: string[] };
  return new Set(mod.stopwords.map((w) => w.normalize('NFKC').toLowerCase()));
}
