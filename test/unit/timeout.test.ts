import { describe, expect, it } from 'vitest';
import { TimeoutError, withTimeout } from '../../shared/runtime/timeout.js';

const never = new Promise<never>(() => undefined);

describe('withTimeout', () => {
  it('settles as the work does when it finishes first', async () => {
    await expect(withTimeout(Promise.resolve(7), 1_000)).resolves.toBe(7);
    await expect(withTimeout(Promise.reject(new Error('boom')), 1_000)).rejects.toThrow('boom');
  });

  it('rejects with a TimeoutError when the work is slower and no fallback is given', async () => {
    await expect(withTimeout(never, 10)).rejects.toBeInstanceOf(TimeoutError);
  });

  it("resolves with the fallback's value when the work is slower", async () => {
    await expect(withTimeout(never, 10, () => false)).resolves.toBe(false);
  });

  it('rejects with what the fallback throws', async () => {
    const fallback = (): never => {
      throw new Error('gave up');
    };
    await expect(withTimeout(never, 10, fallback)).rejects.toThrow('gave up');
  });
});
