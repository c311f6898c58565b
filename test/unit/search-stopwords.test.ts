import { describe, expect, it } from 'vitest';
import { MemoryIndex } from '../../shared/search/memory-index.js';
import { SearchIndex } from '../../shared/search/search-index.js';
import { KEPT_WORDS, loadStopWords } from '../../shared/search/stopwords.js';
import type { StemmerName } from '../../shared/search/tokenize.js';

/** Query terms as a search makes them (queryTerms reads nothing of the store). */
const searchIndex = (stemmer: StemmerName) => new SearchIndex(undefined as never, undefined as never, undefined as never, undefined as never, stemmer);

describe('stop words', () => {
  it('keeps negations and "only" in English queries and leaves out the other small words', async () => {
    const stop = await loadStopWords('english');
    for (const w of ['not', 'no', 'nor', 'only', 'cannot', "don't", "doesn't"]) expect(stop.has(w), w).toBe(false);
    for (const w of ['the', 'how', 'do', 'i', 'that', 'of']) expect(stop.has(w), w).toBe(true);
    expect(await searchIndex('english').queryTerms('How do I show only the lines that do not match?')).toEqual(['show', 'onli', 'line', 'not', 'match']);
  });

  it('keeps each language\'s kept words out of its stop list, and the rest of the library\'s list in', async () => {
    for (const [lang, kept] of Object.entries(KEPT_WORDS) as [StemmerName, readonly string[]][]) {
      const stop = await loadStopWords(lang);
      expect(stop.size, lang).toBeGreaterThan(20);
      for (const w of kept) expect(stop.has(w), `${lang}: ${w}`).toBe(false);
    }
    expect((await loadStopWords('german')).has('und')).toBe(true);
    expect((await loadStopWords('french')).has('pas')).toBe(false);
    expect((await loadStopWords('none')).size).toBe(0);
  });

  it('ranks the chunk with the negated phrase first for a negated question', async () => {
    const search = searchIndex('english');
    const stem = await search.stem();
    const idx = new MemoryIndex('0-0');
    const chunks = [
      { id: 'chk_a', text: 'Print the lines that match the pattern. Each matching line is printed, and a line may match twice.' },
      { id: 'chk_b', text: 'Invert the sense of matching, to select the lines that do not match the pattern.' },
      { id: 'chk_c', text: 'Count the lines of each file and print the counts.' },
      { id: 'chk_d', text: 'The options below change which files are read, not which lines are printed.' },
      { id: 'chk_e', text: 'Exit status is 1 when nothing matched and 2 on an error; the status is not that of the last command.' },
    ];
    chunks.forEach((c, i) => idx.upsert({ ...c, documentId: 'doc_1', index: i, headings: [] }, stem));
    const top = idx.top(await search.queryTerms('How do I show only the lines that do not match?'), 3);
    expect(top[0]?.id).toBe('chk_b');
  });
});
