import type { StemmerName } from './tokenize.js';

/**
 * Words the library lists as stop words that a query needs: negations and
 * "only" turn a question into its opposite or narrow it ("lines that do not
 * match", "only the file names"), so they stay in the query, where a rare
 * pairing of them with the other words still ranks. Lower case; a language
 * not named here keeps the library's list as it is.
 */
export const KEPT_WORDS: Partial<Record<StemmerName, readonly string[]>> = {
  english: [
    'no', 'nor', 'not', 'cannot', 'only', 'without', 'except',
    "can't", "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "weren't", "hasn't", "haven't", "hadn't",
    "won't", "wouldn't", "shan't", "shouldn't", "couldn't", "mustn't",
  ],
  german: ['nicht', 'kein', 'keine', 'keinem', 'keinen', 'keiner', 'keines', 'nichts', 'ohne', 'nur'],
  french: ['ne', 'pas', 'non', 'ni', 'sans', 'seulement', 'sauf'],
  spanish: ['no', 'ni', 'sin', 'nunca', 'ninguno', 'ninguna', 'nada', 'solo', 'sólo', 'excepto', 'tampoco'],
  italian: ['non', 'né', 'senza', 'solo', 'tranne'],
  portuguese: ['não', 'nem', 'sem', 'só', 'somente', 'apenas', 'exceto'],
  dutch: ['niet', 'geen', 'zonder', 'niets', 'alleen', 'behalve'],
  swedish: ['inte', 'ej', 'icke', 'ingen', 'inget', 'inga', 'utan', 'bara', 'endast', 'utom'],
  danish: ['ikke', 'ingen', 'intet', 'uden', 'kun', 'undtagen'],
  norwegian: ['ikke', 'ikkje', 'ingen', 'uten', 'utan', 'kun', 'unntatt'],
  russian: ['не', 'нет', 'ни', 'без', 'никогда', 'ничего', 'только', 'кроме'],
  finnish: ['ei', 'en', 'et', 'emme', 'ette', 'eivät', 'ilman', 'vain', 'paitsi'],
};

/**
 * The stop words of a stemmer's language (`@orama/stopwords`, which has a
 * list for each language `@orama/stemmers` stems) less the language's
 * KEPT_WORDS; none for `none`. Lower case, compared with a word before it
 * is stemmed.
 */
export async function loadStopWords(name: StemmerName): Promise<ReadonlySet<string>> {
  if (name === 'none') return new Set();
  const mod = (await import(`@orama/stopwords/${name}`)) as { stopwords: string[] };
  const kept = new Set(KEPT_WORDS[name] ?? []);
  return new Set(mod.stopwords.map((w) => w.normalize('NFKC').toLowerCase()).filter((w) => !kept.has(w)));
}
