import { describe, expect, it } from 'vitest';
import { formatPaired, pairedRuns } from '../../scripts/lib/bench-pairs.js';

/** A run that returns the next value of a list and records that it ran. */
function scripted(name: string, values: number[], order: string[]): () => Promise<number> {
  let i = 0;
  return async () => {
    order.push(name);
    return values[i++]!;
  };
}

describe('pairedRuns', () => {
  it('alternates ours and the reference, starting with ours, n times each', async () => {
    const order: string[] = [];
    await pairedRuns(scripted('A', [1, 1, 1, 1], order), scripted('B', [2, 2, 2, 2], order), 4);
    expect(order).toEqual(['A', 'B', 'A', 'B', 'A', 'B', 'A', 'B']);
  });

  it('runs each side at least three times', async () => {
    const order: string[] = [];
    await pairedRuns(scripted('A', [1, 1, 1], order), scripted('B', [1, 1, 1], order), 1);
    expect(order).toHaveLength(6);
  });

  it('rates every adjacent pair, so a drifting machine cancels out', async () => {
    // The machine slows down run by run; ours always takes half the reference's time of the same moment.
    const order: string[] = [];
    const result = await pairedRuns(scripted('A', [1, 2, 3], order), scripted('B', [3, 5, 7], order), 3);
    expect(result.pairs.map((p) => p.ratio)).toEqual([3, 1.5, 2.5, 5 / 3, 7 / 3]);
    expect(result.ratio).toBeCloseTo(7 / 3);
    expect(result.spread).toEqual({ min: 1.5, max: 3 });
    expect(result.ours).toBe(2);
    expect(result.reference).toBe(5);
  });

  it('turns the ratio round for rates, where higher is better', async () => {
    const order: string[] = [];
    const result = await pairedRuns(scripted('A', [100, 100, 100], order), scripted('B', [200, 200, 200], order), 3, { better: 'higher' });
    expect(result.ratio).toBe(0.5);
  });

  it('keeps every run with its detail and the load average around it', async () => {
    const result = await pairedRuns(
      async () => ({ value: 1, detail: { commands: 40 } }),
      async () => 2,
      3,
    );
    expect(result.runs).toHaveLength(6);
    expect(result.runs[0]).toMatchObject({ side: 'ours', value: 1, detail: { commands: 40 } });
    expect(result.runs[1]).toMatchObject({ side: 'reference', value: 2 });
    for (const r of result.runs) expect(r.loadBefore).toBeGreaterThanOrEqual(0);
    expect(result.load.after).toBeGreaterThanOrEqual(0);
  });

  it('formats the median with its spread and the number of pairs', () => {
    expect(formatPaired({ ratio: 0.625, spread: { min: 0.5, max: 0.75 }, pairs: [{ ours: 1, reference: 1, ratio: 1 }] })).toBe('0.63 (0.50 to 0.75, 1 pairs)');
  });
});
