/**
 * A small seeded generator (mulberry32): the same seed gives the same
 * sequence, so a run's choices can be repeated.
 */
export class SeededRandom {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Picks by weight: `[[item, weight], ...]`. */
  weighted<T>(choices: ReadonlyArray<readonly [T, number]>): T {
    const total = choices.reduce((n, [, w]) => n + w, 0);
    let r = this.next() * total;
    for (const [item, w] of choices) {
      if ((r -= w) < 0) return item;
    }
    return choices[choices.length - 1]![0];
  }

  /** A new generator seeded from this one, for a second independent stream. */
  fork(): SeededRandom {
    return new SeededRandom(Math.floor(this.next() * 4294967296));
  }
}
