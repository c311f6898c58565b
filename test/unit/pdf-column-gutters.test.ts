import { describe, expect, it } from 'vitest';
import { dropUnsupported, findGutters, gutterCandidates, type ColumnBox } from '../../worker/extractors/pdf/columns.js';

/** Lines of prose in columns between the given bounds, `rows` of them, 10 pt text. */
const column = (x0: number, x1: number, rows: number): ColumnBox[] => Array.from({ length: rows }, (_, i) => ({ x0, x1: x1 - (i % 3) * 4, size: 10 }));

describe('findGutters', () => {
  it('finds the gutter between two columns of prose', () => {
    expect(findGutters([...column(50, 280, 40), ...column(320, 550, 40)])).toEqual([{ start: 280, end: 320 }]);
  });

  it('drops narrow gaps without columns on both sides, however many, and keeps the real gutters', () => {
    // Three columns of prose, and beside them a strip of short labels with many gaps between them (a
    // table of elements, a map's legend): each gap is a candidate until it is found to have no column on a side.
    const labels: ColumnBox[] = Array.from({ length: 30 }, (_, i) => ({ x0: 660 + i * 22, x1: 660 + i * 22 + 10, size: 10 }));
    const page = [...column(50, 220, 40), ...column(250, 420, 40), ...column(450, 620, 40), ...labels];
    expect(findGutters(page)).toEqual([{ start: 220, end: 250 }, { start: 420, end: 450 }]);
  });

  it('finds none on a page of one column, or with too few fragments', () => {
    expect(findGutters(column(50, 550, 40))).toEqual([]);
    expect(findGutters(column(50, 280, 4).concat(column(320, 550, 4)))).toEqual([]);
  });
});

/**
 * The definition the drop loop keeps to: check every candidate against its neighbours, drop the
 * failing one of least support (the first of equals), and check them all again, until none fails.
 */
function guttersByDefinition(fragments: ColumnBox[], candidates: { start: number; end: number }[], em: number, peak: number): { start: number; end: number }[] {
  const side = (from: number, to: number, which: 'left' | 'right') => {
    const near = fragments.filter((f) => f.x0 >= from - 1 && f.x1 <= to + 1 && (which === 'left' ? to - f.x1 : f.x0 - from) < 4 * em);
    const widths = near.map((f) => f.x1 - f.x0).sort((a, b) => a - b);
    return { count: near.length, width: near.length ? widths[near.length >> 1]! : 0 };
  };
  let left = candidates;
  for (;;) {
    const checks = left.map((g, i) => {
      const l = side(left[i - 1]?.end ?? -Infinity, g.start, 'left');
      const r = side(g.end, left[i + 1]?.start ?? Infinity, 'right');
      const minCount = Math.max(3, Math.min(fragments.length, peak) * 0.1);
      return { ok: l.count >= minCount && r.count >= minCount && Math.max(l.width, r.width) >= 8 * em && Math.min(l.width, r.width) >= 3 * em, support: l.count + r.count };
    });
    const failing = checks.map((c, i) => [c, i] as const).filter(([c]) => !c.ok).sort((p, q) => p[0].support - q[0].support)[0];
    if (!failing) return left;
    left = left.filter((_, i) => i !== failing[1]);
  }
}

describe('findGutters against the definition of its drop loop', () => {
  it('gives what checking every candidate again after each drop gives, on 300 random pages', () => {
    let seed = 12345;
    let checked = 0;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let page = 0; page < 300; page++) {
      // Columns of random widths, some short rows, and scattered labels that open gaps of every kind.
      const fragments: ColumnBox[] = [];
      let x = 40;
      const columns = 1 + Math.floor(rand() * 4);
      for (let c = 0; c < columns; c++) {
        const width = 40 + rand() * 200;
        const rows = 3 + Math.floor(rand() * 30);
        for (let r = 0; r < rows; r++) fragments.push({ x0: x + rand() * 6, x1: x + width - rand() * width * 0.6, size: 10 });
        x += width + 10 + rand() * 40;
      }
      const labels = Math.floor(rand() * 40);
      for (let i = 0; i < labels; i++) {
        const at = 40 + rand() * (x - 40);
        fragments.push({ x0: at, x1: at + 4 + rand() * 30, size: 8 + rand() * 4 });
      }
      const bands = gutterCandidates(fragments);
      if (!bands) continue;
      checked += bands.candidates.length > 1 ? 1 : 0;
      expect(dropUnsupported(fragments, bands)).toEqual(guttersByDefinition(fragments, bands.candidates, bands.em, bands.peak));
    }
    expect(checked, 'pages with several candidates').toBeGreaterThan(50);
  });
});
