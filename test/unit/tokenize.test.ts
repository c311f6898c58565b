import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../scripts/lib/seeded-random.js';
import { words } from '../../shared/search/tokenize.js';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });
/** Intl.Segmenter over the whole text: what words() must find. */
const reference = (text: string) =>
  [...segmenter.segment(text)]
    .filter((s) => s.isWordLike && s.segment.length <= 40)
    .map((s) => ({ word: s.segment.normalize('NFKC').toLowerCase(), start: s.index, end: s.index + s.segment.length }));

describe('words', () => {
  it('finds the words Intl.Segmenter finds, at the same places, in ASCII and mixed text', () => {
    const random = new SeededRandom(29);
    const pieces = ['a', 'B', 'z', '1', '9', '_', ' ', '  ', '\n', '\t', '.', ',', ';', ':', "'", '-', '"', '!', '/', '(', 'é', '中文', 'ไทย', '\u0301', '\u200d', '’', '🙂', '１', 'ﬁ', 'İ',
      'ÿ', 'Ā', 'ĳ', 'ŉ', 'ſ', 'Ș', '×', '\u00a0', '\ufffd', '─', '“', '”', '«', '»', '–', '—', '…', '•', '‘', '\u00ad', '·', '©', '\u0000', '\u0007', '\u0019', '\u007f', '\u0085', 'ab', 'zé'];
    for (let n = 0; n < 10000; n++) {
      const text = Array.from({ length: random.int(1, 24) }, () => pieces[random.int(0, pieces.length - 1)]).join('');
      expect(words(text), JSON.stringify(text)).toEqual(reference(text));
    }
  });

  it('keeps contractions, abbreviations and numbers whole as UAX #29 does', () => {
    expect(words("Can't e.g. 3.14 1,000 a_b x'1 a;b").map((w) => w.word)).toEqual(["can't", 'e.g', '3.14', '1,000', 'a_b', 'x', '1', 'a', 'b']);
  });
});
