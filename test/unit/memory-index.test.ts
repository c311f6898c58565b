import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../scripts/lib/seeded-random.js';
import { MemoryIndex } from '../../shared/search/memory-index.js';
import { highlight } from '../../shared/search/rank.js';
import { eachWordSpan, loadStemmer } from '../../shared/search/tokenize.js';
import { WordTerms } from '../../shared/search/word-terms.js';

const stem = await loadStemmer('english');
const vocabulary = Array.from({ length: 300 }, (_, i) => `w${i.toString(36)}x`);
const text = (random: SeededRandom, words: string[]) => Array.from({ length: random.int(5, 40) }, () => words[random.int(0, words.length - 1)]).join(' ');

describe('MemoryIndex', () => {
  it('ranks alike after its removed chunks are purged and new words take the freed terms', () => {
    const random = new SeededRandom(7);
    const idx = new MemoryIndex('0-0');
    // As many removals as the purge waits for (PURGE_FLOOR), the last emptying the index: every term of the first words is dropped and its number freed.
    for (let i = 0; i < 4096; i++) idx.upsert({ id: `chk_old${i}`, documentId: 'doc_a', index: i, text: text(random, vocabulary.slice(0, 150)), headings: [] }, stem);
    for (let i = 0; i < 4096; i++) idx.remove(`chk_old${i}`);
    const fresh = new MemoryIndex('0-0');
    const chunks = Array.from({ length: 300 }, (_, i) => ({ id: `chk_${i}`, documentId: 'doc_b', index: i, text: text(random, vocabulary), headings: [text(random, vocabulary).slice(0, 20)] }));
    for (const c of chunks) {
      idx.upsert(c, stem);
      fresh.upsert(c, stem);
    }
    for (let q = 0; q < 50; q++) {
      const terms = [vocabulary[random.int(0, 299)]!, vocabulary[random.int(0, 299)]!];
      expect(idx.top(terms, 10)).toEqual(fresh.top(terms, 10));
    }
  });
});

describe('WordTerms', () => {
  it('gives a spelling the term of its lower-cased word, whatever else shares its slot', () => {
    const random = new SeededRandom(3);
    const terms = new Map<string, number>();
    const termOf = (term: string) => terms.get(term) ?? (terms.set(term, terms.size), terms.size - 1);
    const cache = new WordTerms(termOf);
    // Far more spellings than the table's 256 slots, in both cases, met again and again.
    const spellings = Array.from({ length: 2000 }, (_, i) => (i % 2 ? `Word${i}s` : `word${i}ing`));
    for (let n = 0; n < 200; n++) {
      const text = Array.from({ length: 50 }, () => spellings[random.int(0, spellings.length - 1)]).join(' ');
      eachWordSpan(text, (word, start, end) => {
        expect(word).toBeUndefined();
        expect(cache.ofSpelling(text, start, end, stem)).toBe(termOf(stem(text.slice(start, end).toLowerCase())));
      });
    }
  });
});

describe('highlight', () => {
  it('marks the matched words of the 240 characters around the first one, and names every matched word of the text', () => {
    const body = `${'Lorem ipsum dolor sit amet. '.repeat(10)}The <b> Kiwis are kiwi birds; a kiwi & more. ${'Filler words here. '.repeat(20)}Last kiwis.`;
    const terms = new Set([stem('kiwi')]);
    const { highlight: h, matchedTerms } = highlight(body, terms, stem);
    expect(h.startsWith('…')).toBe(true);
    expect(h).toContain('The &lt;b&gt; <mark>Kiwis</mark> are <mark>kiwi</mark> birds; a <mark>kiwi</mark> &amp; more.');
    expect(h.endsWith('…')).toBe(true);
    expect(h).not.toContain('Last');
    expect(matchedTerms).toEqual(['kiwis', 'kiwi']);
  });
});
