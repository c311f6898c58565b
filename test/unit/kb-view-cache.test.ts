import { describe, expect, it } from 'vitest';
import { KbViewCache, viewStamp } from '../../shared/verbs/kb-view-cache.js';

describe('KbViewCache', () => {
  it('answers a body only at the stamp it was kept for', () => {
    const cache = new KbViewCache(100);
    const at = { createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-02T00:00:00.000Z' };
    cache.set('kb_a', viewStamp(at, 3), '{"r":3}');
    expect(cache.get('kb_a', viewStamp(at, 3))).toBe('{"r":3}');
    expect(cache.get('kb_a', viewStamp(at, 4))).toBeUndefined();
    expect(cache.get('kb_a', viewStamp({ ...at, createdAt: '2026-02-01T00:00:00.000Z' }, 3))).toBeUndefined();
    expect(cache.get('kb_a', viewStamp({ ...at, updatedAt: '2026-01-03T00:00:00.000Z' }, 3))).toBeUndefined();
    expect(cache.has('kb_a')).toBe(true);
  });

  it('drops the least recently used bodies past its bound and keeps its count exact', () => {
    const cache = new KbViewCache(10);
    cache.set('a', 's', '1234');
    cache.set('b', 's', '1234');
    expect(cache.get('a', 's')).toBe('1234');
    cache.set('c', 's', '1234');
    expect(cache.has('b')).toBe(false);
    expect([cache.has('a'), cache.has('c'), cache.chars]).toEqual([true, true, 8]);
    cache.set('a', 't', '12');
    expect(cache.chars).toBe(6);
    cache.delete('c');
    expect(cache.chars).toBe(2);
  });

  it('keeps no body larger than its bound, and none at all with a bound of 0', () => {
    const cache = new KbViewCache(3);
    cache.set('a', 's', '12');
    cache.set('a', 't', '1234');
    expect([cache.has('a'), cache.chars]).toEqual([false, 0]);
    const off = new KbViewCache(0);
    expect(off.enabled).toBe(false);
  });
});
