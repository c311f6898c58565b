import { describe, expect, it } from 'vitest';
import { coalesced } from '../../shared/store/feed-bound.js';
import type { RedisClient } from '../../shared/redis/redis.js';

describe('coalesced feed bound passes', () => {
  it('runs once for a write alone, and once more for all writes that came while a pass ran, each caller answered after a pass begun after it', async () => {
    const redis = {} as RedisClient;
    const started: number[] = [];
    const gates: (() => void)[] = [];
    let calls = 0;
    const run = () => {
      started.push(calls);
      return new Promise<void>((resolve) => gates.push(resolve));
    };
    const call = (): Promise<number> => {
      const at = ++calls;
      return coalesced(redis, 'feed', run).then(() => at);
    };
    const first = call();
    expect(started).toEqual([1]);
    const waiting = [call(), call(), call()];
    expect(started).toEqual([1]);
    gates.shift()!();
    expect(await first).toBe(1);
    await new Promise((r) => setImmediate(r));
    // One pass for the three writes that came meanwhile, begun after all of them.
    expect(started).toEqual([1, 4]);
    let settled = false;
    void Promise.all(waiting).then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    gates.shift()!();
    expect(await Promise.all(waiting)).toEqual([2, 3, 4]);
    // Another feed is not held back by this one's.
    void coalesced(redis, 'other', run);
    expect(started).toEqual([1, 4, 4]);
    gates.shift()!();
  });

  it('runs the next pass even when the one before it failed', async () => {
    const redis = {} as RedisClient;
    let runs = 0;
    let fail: (e: Error) => void = () => undefined;
    const firstRun = coalesced(redis, 'feed', () => new Promise<void>((_, reject) => ((fail = reject), runs++)));
    const second = coalesced(redis, 'feed', async () => void runs++);
    fail(new Error('redis down'));
    await expect(firstRun).rejects.toThrow('redis down');
    await second;
    expect(runs).toBe(2);
  });
});
