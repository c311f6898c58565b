import { describe, expect, it } from 'vitest';
import { joinReads, splitPages, type PagesRead } from '../../worker/extractors/pdf/read-pages.js';
import type { PdfLine } from '../../worker/extractors/pdf/lines.js';
import { headStartPages } from '../../worker/extractors/pdf/split-read.js';

const line = (text: string): PdfLine => ({ text, x0: 0, x1: 100, y: 700, size: 12, block: 0, cells: 1 });
const pages = (...texts: string[]): PagesRead => ({ lines: texts.map((t) => [line(t)]), fields: texts.map(() => []) });

describe('page ranges of a PDF', () => {
  it('cuts the pages into consecutive ranges of nearly equal length that cover every page once', () => {
    expect(splitPages(10, 3)).toEqual([{ from: 1, to: 4 }, { from: 5, to: 7 }, { from: 8, to: 10 }]);
    expect(splitPages(2, 4)).toEqual([{ from: 1, to: 1 }, { from: 2, to: 2 }]);
    expect(splitPages(7, 1)).toEqual([{ from: 1, to: 7 }]);
  });

  it('makes the first range longer by the head start, the others nearly equal, every page covered once', () => {
    expect(splitPages(95, 2, 12)).toEqual([{ from: 1, to: 54 }, { from: 55, to: 95 }]);
    expect(splitPages(30, 3, 3)).toEqual([{ from: 1, to: 12 }, { from: 13, to: 21 }, { from: 22, to: 30 }]);
    // A head start longer than the document leaves each other range one page.
    expect(splitPages(5, 3, 100)).toEqual([{ from: 1, to: 3 }, { from: 4, to: 4 }, { from: 5, to: 5 }]);
    expect(splitPages(7, 1, 4)).toEqual([{ from: 1, to: 7 }]);
  });

  it('gives a few-MB file a page or two of head start and a large one more', () => {
    expect(headStartPages(3 * 1024 * 1024)).toBeLessThanOrEqual(2);
    expect(headStartPages(24 * 1024 * 1024)).toBeGreaterThanOrEqual(10);
  });

  it('joins reads in page order', () => {
    const joined = joinReads([pages('one', 'two'), pages('three')], Number.POSITIVE_INFINITY);
    expect(joined.lines.map((l) => l[0]!.text)).toEqual(['one', 'two', 'three']);
    expect(joined.fields).toHaveLength(3);
  });

  it('drops the pages after the one where the text passes the limit, across ranges', () => {
    // Each page counts its text plus one: 4 chars. Pages start while 8 chars or fewer were read.
    const joined = joinReads([pages('aaa', 'bbb'), pages('ccc', 'ddd')], 8);
    expect(joined.lines.map((l) => l[0]!.text)).toEqual(['aaa', 'bbb', 'ccc']);
  });
});
