import { describe, expect, it } from 'vitest';
import { normalized, phraseJudge, recallAt, reciprocalRankAt, retrievalScores } from '../../scripts/lib/retrieval-metrics.js';

describe('the judgement of the retrieval set', () => {
  it('finds a phrase across a line break, in another case and inside Markdown marks', () => {
    const chunks = [
      { id: 'a', text: 'Use the **-n**\noption to   suppress automatic printing.' },
      { id: 'b', text: 'The `Listen` directive tells the server to accept requests.' },
      { id: 'c', text: 'Nothing here about printing or listening.' },
      { id: 'd', text: 'mynetworks\\_style = host' },
    ];
    const judge = phraseJudge(chunks);
    expect([...judge.relevant(['-n option to suppress automatic'])]).toEqual(['a']);
    expect([...judge.relevant(['the listen directive', 'SUPPRESS AUTOMATIC printing'])].sort()).toEqual(['a', 'b']);
    expect([...judge.relevant(['mynetworks_style = host'])]).toEqual(['d']);
    expect([...judge.relevant(['listening to music', '  '])]).toEqual([]);
    expect(normalized('  A\t**B**\n\n`c`  ')).toBe('a b c');
  });

  it('reports the phrases that no chunk holds', () => {
    const judge = phraseJudge([{ id: 'a', text: 'The quick brown fox.' }, { id: 'b', text: 'jumps over the dog' }]);
    expect(judge.unmatched(['quick  brown', 'lazy dog', 'JUMPS over', ''])).toEqual(['lazy dog', '']);
  });

  it('counts a question found when a relevant chunk is in the first k, and its reciprocal rank within k', () => {
    const relevant = new Set(['r1', 'r2']);
    expect(recallAt(5, ['x', 'y', 'z', 'w', 'r2', 'r1'], relevant)).toBe(1);
    expect(recallAt(5, ['x', 'y', 'z', 'w', 'v', 'r1'], relevant)).toBe(0);
    expect(reciprocalRankAt(10, ['x', 'r2', 'r1'], relevant)).toBe(0.5);
    expect(reciprocalRankAt(10, ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'r1'], relevant)).toBe(0);
    expect(reciprocalRankAt(10, [], relevant)).toBe(0);
  });

  it('averages recall@5 and MRR@10 over the questions', () => {
    const relevant = [new Set(['a']), new Set(['b']), new Set(['c']), new Set(['d'])];
    const ranked = [['a'], ['x', 'x2', 'b'], ['x', 'x2', 'x3', 'x4', 'x5', 'c'], []];
    const { recall5, mrr10 } = retrievalScores(relevant, ranked);
    expect(recall5).toBeCloseTo(2 / 4, 10);
    expect(mrr10).toBeCloseTo((1 + 1 / 3 + 1 / 6 + 0) / 4, 10);
    expect(() => retrievalScores(relevant, ranked.slice(1))).toThrow(/4 questions but 3 rankings/);
  });
});
