import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { textsField } from '../helpers/multipart-body.js';
import { call, createKb, patchKb, readySource } from './support.js';

let h: Harness;
/** An API on the same Redis that does not check its kept rows against every source. */
let unverified: Harness;
/** An API on the same Redis that keeps nothing. */
let off: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  unverified = await createHarness({ REDIS_KEY_PREFIX: h.prefix, KB_VIEW_VERIFY: 'false' });
  off = await createHarness({ REDIS_KEY_PREFIX: h.prefix, KB_VIEW_CACHE_MB: '0' });
  key = await h.key('ws-view-cache');
});
afterAll(async () => {
  await unverified.close();
  await off.close();
  await h.close();
});

const kbPath = (kbId: string): string => `/v1/knowledge-bases/${kbId}`;
const getFrom = (harness: Harness, kbId: string, k = key) => call(harness.app, 'GET', kbPath(kbId), { key: k });
const get = (kbId: string, k = key) => getFrom(h, kbId, k);
const getUnverified = (kbId: string) => getFrom(unverified, kbId);

describe('GET of a knowledge base kept by revision', () => {
  it('answers a settled knowledge base from its kept body while the revision holds, and reads only the changed source after a change', async () => {
    const kb = await createKb(h, key, 'Kept', [textsField(['one', 'two'])]);
    const [a, b] = kb.files.map((f: { documentId: string }) => f.documentId);
    await readySource(h, kb.kbId, a, 'one');
    await readySource(h, kb.kbId, b, 'two');
    const first = await getUnverified(kb.kbId);
    expect((await get(kb.kbId)).text).toBe(first.text);
    expect(first.body.status).toBe('ready');
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    // A write that bypasses the scripts (and so the revision and the changed set) stays unseen: the second GET did not read the source.
    await h.redis.hset(h.store.keys.source(kb.kbId, a), 'title', 'written behind the revision');
    const second = await getUnverified(kb.kbId);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    const meta = await call(unverified.app, 'PATCH', `${kbPath(kb.kbId)}/documents/${b}`, { key, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { team: 'ops' } }) });
    expect(meta.status, meta.text).toBe(200);
    const third = await getUnverified(kb.kbId);
    expect(third.headers.get('etag')).not.toBe(first.headers.get('etag'));
    // b, changed by a script, is read again; a is answered from the row kept for it.
    expect(third.body.files.map((f: { title?: string; metadata?: unknown }) => [f.title, f.metadata])).toEqual([
      [undefined, undefined],
      [undefined, { team: 'ops' }],
    ]);
    // An API that checks its kept rows (as every test's does) refuses to answer the stale row.
    const checked = await get(kb.kbId);
    expect(checked.status).toBe(500);
    // An API without kept rows reads every source.
    expect((await getFrom(off, kb.kbId)).body.files[0].title).toBe('written behind the revision');
  });

  it('reads only the sources changed since the last GET of an active knowledge base, so progress shows and nothing else is read', async () => {
    const kb = await createKb(h, key, 'Active', [textsField(['busy', 'idle', 'gone'])]);
    const [busy, idle, gone] = kb.files.map((f: { documentId: string }) => f.documentId);
    const ref = { kbId: kb.kbId, documentId: busy, run: 1 };
    expect((await h.store.kbs.startSourceReport(ref, { now: new Date().toISOString() })).result).toBe('ok');
    expect(await h.store.kbs.setProgress(ref, { bytesDone: 1, bytesTotal: 4 })).toBe('ok');
    expect((await getUnverified(kb.kbId)).body.files[0].progress).toEqual({ bytesDone: 1, bytesTotal: 4 });
    expect((await get(kb.kbId)).body.files[0].progress).toEqual({ bytesDone: 1, bytesTotal: 4 });
    // Written behind the scripts: unseen by a reader that keeps rows, as the source did not change since.
    await h.redis.hset(h.store.keys.source(kb.kbId, idle), 'title', 'written behind');
    expect(await h.store.kbs.setProgress(ref, { bytesDone: 3, bytesTotal: 4 })).toBe('ok');
    expect((await call(h.app, 'DELETE', `${kbPath(kb.kbId)}/documents/${gone}`, { key })).status).toBe(204);
    const after = await getUnverified(kb.kbId);
    expect(after.body.status).toBe('in_progress');
    expect(after.body.files.map((f: { documentId: string; title?: string; progress?: unknown }) => [f.documentId, f.title, f.progress])).toEqual([
      [busy, undefined, { bytesDone: 3, bytesTotal: 4 }],
      [idle, undefined, undefined],
    ]);
    // A source added since is read and listed in its place.
    const added = await patchKb(unverified, key, kb.kbId, [textsField(['late'])]);
    expect(added.status, added.text).toBe(200);
    expect(added.body.files).toHaveLength(3);
    const last = await getUnverified(kb.kbId);
    expect(last.body.files.map((f: { documentId: string }) => f.documentId)).toEqual([busy, idle, added.body.files[2].documentId]);
    expect(last.body.files[1].title).toBeUndefined();
  });

  it('answers a PATCH with its sources as it wrote them, checked as such, when a worker claims one before the answer is read', async () => {
    const kb = await createKb(h, key, 'Claimed early', [textsField(['first'])]);
    const kbs = h.store.kbs;
    const original = kbs.getChanged;
    // A worker claims the new source between the commit and the answer's read.
    kbs.getChanged = async (kbId, ...rest) => {
      const pending = (await kbs.get(kbId))!.sources.find((s) => s.status === 'pending' && s.content === 'second');
      if (pending) expect((await kbs.startSourceReport({ kbId, documentId: pending.documentId, run: 1 }, { now: new Date().toISOString() })).result).toBe('ok');
      return original.call(kbs, kbId, ...rest);
    };
    try {
      const res = await patchKb(h, key, kb.kbId, [textsField(['second'])]);
      expect(res.status, res.text).toBe(200);
      expect(res.body.files.map((f: { content: string; status: string }) => [f.content, f.status])).toEqual([['first', 'pending'], ['second', 'pending']]);
    } finally {
      kbs.getChanged = original;
    }
    expect((await get(kb.kbId)).body.files[1].status).toBe('processing');
  });

  it('still answers 403 to another workspace and 404 once the knowledge base is deleted', async () => {
    const kb = await createKb(h, key, 'Owned');
    expect((await get(kb.kbId)).status).toBe(200);
    expect((await get(kb.kbId)).status).toBe(200);
    expect((await get(kb.kbId, await h.key('ws-view-cache-other'))).status).toBe(403);
    expect((await call(h.app, 'DELETE', kbPath(kb.kbId), { key })).status).toBe(204);
    expect((await get(kb.kbId)).status).toBe(404);
  });

  it('reads every source on each GET with KB_VIEW_CACHE_MB=0', async () => {
    const off = await createHarness({ KB_VIEW_CACHE_MB: '0' });
    try {
      const k = await off.key('ws-view-cache-off');
      const kb = await createKb(off, k, 'Uncached');
      const path = kbPath(kb.kbId);
      expect((await call(off.app, 'GET', path, { key: k })).body.status).toBe('empty');
      await off.redis.hset(off.store.keys.kb(kb.kbId), 'name', 'renamed behind the revision');
      expect((await call(off.app, 'GET', path, { key: k })).body.name).toBe('renamed behind the revision');
    } finally {
      await off.close();
    }
  });
});
