import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { textsField } from '../helpers/multipart-body.js';
import { call, createKb, readySource } from './support.js';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws-view-cache');
});
afterAll(async () => h.close());

const kbPath = (kbId: string): string => `/v1/knowledge-bases/${kbId}`;
const get = (kbId: string, k = key) => call(h.app, 'GET', kbPath(kbId), { key: k });

describe('GET of a knowledge base kept by revision', () => {
  it('answers a settled knowledge base from its kept body while the revision holds, and reads it again after a change', async () => {
    const kb = await createKb(h, key, 'Kept', [textsField(['one', 'two'])]);
    const [a, b] = kb.files.map((f: { documentId: string }) => f.documentId);
    await readySource(h, kb.kbId, a, 'one');
    await readySource(h, kb.kbId, b, 'two');
    const first = await get(kb.kbId);
    expect(first.body.status).toBe('ready');
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    // A write that bypasses the scripts (and so the revision) stays unseen: the second GET did not read the source.
    await h.redis.hset(h.store.keys.source(kb.kbId, a), 'title', 'written behind the revision');
    const second = await get(kb.kbId);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    const meta = await call(h.app, 'PATCH', `${kbPath(kb.kbId)}/documents/${b}`, { key, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { team: 'ops' } }) });
    expect(meta.status, meta.text).toBe(200);
    const third = await get(kb.kbId);
    expect(third.headers.get('etag')).not.toBe(first.headers.get('etag'));
    expect(third.body.files.map((f: { title?: string; metadata?: unknown }) => [f.title, f.metadata])).toEqual([
      ['written behind the revision', undefined],
      [undefined, { team: 'ops' }],
    ]);
  });

  it('reads an active knowledge base whole each time, so progress shows', async () => {
    const kb = await createKb(h, key, 'Active', [textsField(['busy'])]);
    const ref = { kbId: kb.kbId, documentId: kb.files[0].documentId, run: 1 };
    expect((await h.store.kbs.startSourceReport(ref, { now: new Date().toISOString() })).result).toBe('ok');
    expect(await h.store.kbs.setProgress(ref, { bytesDone: 1, bytesTotal: 4 })).toBe('ok');
    expect((await get(kb.kbId)).body.files[0].progress).toEqual({ bytesDone: 1, bytesTotal: 4 });
    expect(await h.store.kbs.setProgress(ref, { bytesDone: 3, bytesTotal: 4 })).toBe('ok');
    expect((await get(kb.kbId)).body.files[0].progress).toEqual({ bytesDone: 3, bytesTotal: 4 });
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
