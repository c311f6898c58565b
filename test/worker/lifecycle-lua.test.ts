import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCounts } from '../../shared/sources/lifecycle.js';
import { lifecycleLua } from '../../shared/store/lifecycle-lua.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

/** Runs one moveStatus call of the generated include on a throwaway knowledge base. */
async function move(kbId: string, from: string, to: string): Promise<void> {
  const lua = `${lifecycleLua()}\nmoveStatus(KEYS[1], KEYS[2], ARGV[1] ~= '' and ARGV[1] or nil, ARGV[2] ~= '' and ARGV[2] or nil)\nreturn {'ok'}`;
  await h.redis.eval(lua, 2, h.store.keys.kb(kbId), h.store.keys.source(kbId, 'src'), from, to);
}

describe('the generated lifecycle helper', () => {
  it('moves the counters and the status together for a declared move', async () => {
    await move('kb_lifecycle_ok', '', 'pending');
    await move('kb_lifecycle_ok', 'pending', 'processing');
    await move('kb_lifecycle_ok', 'processing', 'ready');
    expect(readCounts(await h.redis.hgetall(h.store.keys.kb('kb_lifecycle_ok')))).toEqual({ pending: 0, processing: 0, ready: 1, failed: 0 });
    expect(await h.redis.hget(h.store.keys.source('kb_lifecycle_ok', 'src'), 'status')).toBe('ready');
  });

  it('refuses a move the lifecycle does not declare, writing nothing', async () => {
    await expect(move('kb_lifecycle_bad', 'ready', 'processing')).rejects.toThrow(/undeclared source move ready -> processing/);
    expect(await h.redis.exists(h.store.keys.kb('kb_lifecycle_bad'), h.store.keys.source('kb_lifecycle_bad', 'src'))).toBe(0);
  });
});
