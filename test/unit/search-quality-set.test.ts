import { describe, expect, it } from 'vitest';
import { headingQueries, qualityScores, withoutNumbering } from '../../scripts/lib/search-quality-set.js';
import type { Chunk } from '../../shared/schemas/chunk.js';

const chunk = (id: string, documentId: string, headings: string[]): Chunk => ({ id, documentId, index: 0, text: '', charStart: 0, charEnd: 0, tokens: 0, headings });

describe('the heading query set of the search quality script', () => {
  it('drops a heading number but keeps words that only look like one', () => {
    expect(['2.3 Window functions', '4. Errors', '12) Files', 'IV. Results', 'A) Setup', 'A guide', 'Step 4: run', 'I/O'].map(withoutNumbering)).toEqual([
      'Window functions', 'Errors', 'Files', 'Results', 'Setup', 'A guide', 'Step 4: run', 'I/O',
    ]);
  });

  it('makes one query per heading path, relevant to the chunks under it, subsections included', () => {
    const queries = headingQueries([
      chunk('a', 'd1', ['1. Intro', 'Scope']),
      chunk('b', 'd1', ['1. Intro']),
      chunk('c', 'd2', ['1. Intro']),
      chunk('d', 'd2', ['---']),
    ]);
    expect(queries.map((q) => [q.text, [...q.relevant]])).toEqual([
      ['Intro', ['a', 'b']],
      ['Scope', ['a']],
      ['Intro', ['c']],
    ]);
  });

  it('scores recall@10 over all relevant chunks and the reciprocal rank of the first one', () => {
    const queries = [{ text: 'x', relevant: new Set(['a', 'b']) }, { text: 'y', relevant: new Set(['z']) }];
    const ranked = [['q', 'a', 'r'], ['q', 'r']];
    expect(qualityScores(queries, ranked)).toEqual({ recall: 0.25, mrr: 0.25 });
  });
});
