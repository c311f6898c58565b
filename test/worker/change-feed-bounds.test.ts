import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../shared/schemas/changes.js';
import { encodeCursor } from '../../shared/feed/cursor.js';
import { createStore } from '../../shared/store/index.js';
import { call, expectErrorBody } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';
import { createKbWith, startTestWorker } from '../helpers/worker-harness.js';
import type { RunningWorker } from '../../worker/main.js';

const MIB = 1024 * 1024;
let h: Harness;
let worker: RunningWorker;

beforeAll(async () => {
  // The smallest bounds the settings take: one feed 1 MiB, a workspace's feeds 1.5 MiB.
  h = await createHarness({ CHANGES_MAX_BYTES: String(MIB), CHANGES_WORKSPACE_MAX_BYTES: String(1.5 * MIB) });
  worker = await startTestWorker(h);
});
afterAll(async () => {
  await worker.close();
  await h.close();
});

/** About `bytes` of prose, each sentence numbered so the chunks differ. */
function prose(bytes: number, seed = 0): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const s = i % 40 === 0 ? `\n\n## Part ${seed}-${i}\n\n` : `Sentence ${seed}-${i} of the handbook explains one more rule for the support desk in plain words. `;
    parts.push(s);
    size += s.length;
  }
  return parts.join('');
}

async function settled(kbId: string, key: string): Promise<void> {
  await waitFor(`knowledge base ${kbId} to settle`, async () => (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).body.status === 'ready', { timeoutMs: 60_000 });
}

async function chunkBytes(kbId: string, key: string): Promise<number> {
  let bytes = 0;
  let after: string | null = null;
  do {
    const res = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/chunks?size=100${after ? `&after=${after}` : ''}`, { key });
    expect(res.status, res.text).toBe(200);
    for (const c of res.body.data) bytes += Buffer.byteLength(JSON.stringify(c));
    after = res.body.nextCursor;
  } while (after);
  return bytes;
}

const feedBytes = async (kbId: string) => Number(await h.redis.hget(h.store.keys.changesInfo(kbId), 'bytes'));
const patchMetadata = (key: string, kbId: string, documentId: string, metadata: object) =>
  call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}/documents/${documentId}`, { key, body: JSON.stringify({ metadata }), headers: { 'content-type': 'application/json' } });

describe('the change feed in bytes', () => {
  it("keeps one 200 KB text's feed within a few times the bytes of its chunks, with no event carrying the text", async () => {
    const key = await h.key('ws-bound-amp');
    const text = prose(200_000);
    const { kbId } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify([{ title: 'Handbook', text, metadata: { team: 'desk' } }])));
    await settled(kbId, key);
    const chunks = await chunkBytes(kbId, key);
    const stream = h.store.keys.changes(kbId);
    const memory = Number(await h.redis.call('MEMORY', 'USAGE', stream, 'SAMPLES', '0'));
    expect(memory / chunks).toBeLessThan(3);
    // The running count is what the events hold, and what usage shows.
    const counted = await feedBytes(kbId);
    expect(counted).toBeGreaterThan(chunks * 0.8);
    expect(counted).toBeLessThan(chunks * 2);
    expect((await call(h.app, 'GET', '/v1/usage', { key })).body.derivedBytes.changeFeeds).toBe(counted);
    const first = (await h.redis.xrange(stream, '-', '+', 'COUNT', 1))[0]![1];
    expect(first.join(' ')).not.toContain(text.slice(0, 2000));
    const page = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/changes?size=5`, { key });
    expect(page.body.data[0].chunk).toMatchObject({ title: 'Handbook', metadata: { team: 'desk' } });
  }, 90_000);

  it('holds a feed under CHANGES_MAX_BYTES through many metadata PATCHes, with a 410 for a cursor before what it dropped', async () => {
    const key = await h.key('ws-bound-feed');
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify([{ title: 'Handbook', text: prose(200_000, 1) }])));
    await settled(kbId, key);
    const start = (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/changes?size=1`, { key })).body;
    const perWrite = await feedBytes(kbId);
    for (let i = 0; i < 8; i++) expect((await patchMetadata(key, kbId, docs[0]!, { round: i })).status).toBe(200);
    const held = await feedBytes(kbId);
    expect(held).toBeLessThanOrEqual(MIB);
    expect(held).toBeGreaterThan(MIB - 2 * perWrite);
    expect(Number(await h.redis.call('MEMORY', 'USAGE', h.store.keys.changes(kbId), 'SAMPLES', '0'))).toBeLessThan(2 * MIB);
    const gone = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/changes?after=${start.nextCursor}`, { key });
    expectErrorBody(gone, 410, '/v1/knowledge-bases', { message: 'any' });
    // A page is bounded in bytes as well as in events: read by a store whose pages carry 256 KiB, size=1000 stops there.
    const pages = createStore(h.redis, { prefix: h.prefix, blobTtlSeconds: 60, changes: { ...h.store.keys.changeRetention, pageMaxBytes: MIB / 4 } });
    const floor = await h.redis.hget(h.store.keys.changesInfo(kbId), 'floor');
    const page = await pages.changes.read('ws-bound-feed', kbId, encodeCursor(floor!, kbId), 1000);
    expect(page.hasMore).toBe(true);
    expect(page.data.length).toBeGreaterThan(1);
    const size = Buffer.byteLength(JSON.stringify(page));
    expect(size).toBeGreaterThan(0.9 * (MIB / 4));
    expect(size).toBeLessThan(MIB / 4 + 16_384);
    const whole = await h.store.changes.read('ws-bound-feed', kbId, encodeCursor(floor!, kbId), 1000);
    expect(whole.data.length).toBeGreaterThan(page.data.length);
  }, 120_000);

  it("holds a workspace's feeds together under CHANGES_WORKSPACE_MAX_BYTES by trimming the feed written, and counts them in usage", async () => {
    const key = await h.key('ws-bound-total');
    const otherKey = await h.key('ws-bound-other');
    const a = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify([prose(200_000, 2)])));
    const b = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify([prose(200_000, 3)])));
    const other = await createKbWith(h, otherKey, (f) => f.set('knowledge_base_texts', JSON.stringify([prose(200_000, 4)])));
    await Promise.all([settled(a.kbId, key), settled(b.kbId, key), settled(other.kbId, otherKey)]);
    const perWrite = await feedBytes(a.kbId);
    for (let i = 0; i < 2; i++) expect((await patchMetadata(key, a.kbId, a.docs[0]!, { round: i })).status).toBe(200);
    const aHeld = await feedBytes(a.kbId);
    const otherHeld = await feedBytes(other.kbId);
    for (let i = 0; i < 4; i++) expect((await patchMetadata(key, b.kbId, b.docs[0]!, { round: i })).status).toBe(200);
    // B passed the workspace's bound: B dropped its oldest events, A kept all of its own, the other workspace too.
    expect(await feedBytes(a.kbId)).toBe(aHeld);
    expect(await feedBytes(other.kbId)).toBe(otherHeld);
    const bHeld = await feedBytes(b.kbId);
    expect(aHeld + bHeld).toBeLessThanOrEqual(1.5 * MIB);
    // The bound per feed alone would have kept more of B.
    expect(aHeld).toBeGreaterThan(MIB / 2 + perWrite / 2);
    expect(bHeld).toBeLessThan(MIB - perWrite / 2);
    const usage = (await call(h.app, 'GET', '/v1/usage', { key })).body.derivedBytes.changeFeeds;
    expect(usage).toBe(aHeld + bHeld);
    expectErrorBody(await call(h.app, 'GET', `/v1/knowledge-bases/${b.kbId}/changes?size=1`, { key }), 410, '/v1/knowledge-bases', { message: 'any' });
    expect((await call(h.app, 'GET', `/v1/knowledge-bases/${a.kbId}/changes?size=1`, { key })).status).toBe(200);
  }, 120_000);
});

describe('change feed cursors and edge cases', () => {
  it('shows a long title cut to 1 KiB at a character, the same in the feed and the listing', async () => {
    const key = await h.key('ws-bound-title');
    const title = `é${'😀'.repeat(500)}`;
    const { kbId } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify([{ title, text: 'A short text.' }])));
    await settled(kbId, key);
    const listed = (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/chunks`, { key })).body.data[0].title as string;
    const fed = (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/changes`, { key })).body.data[0].chunk.title as string;
    expect(fed).toBe(listed);
    expect(Buffer.byteLength(fed)).toBe(1022);
    expect(title.startsWith(fed)).toBe(true);
  });

  it('refuses with a 400 a cursor of another knowledge base and one ahead of the feed, and still reads a cursor of the earlier form', async () => {
    const key = await h.key('ws-bound-cursor');
    const one = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['One text, short.'])));
    const two = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['Another text, short.'])));
    await Promise.all([settled(one.kbId, key), settled(two.kbId, key)]);
    const read = (kbId: string, after: string) => call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/changes?after=${after}`, { key });
    const oneCursor = (await read(one.kbId, encodeCursor('0-0', one.kbId))).body.nextCursor as string;
    expectErrorBody(await read(two.kbId, oneCursor), 400, '/v1/knowledge-bases', { fields: ['after'] });
    const head = await h.redis.hget(h.store.keys.changesInfo(one.kbId), 'head');
    const [ms, seq] = head!.split('-').map(Number) as [number, number];
    expectErrorBody(await read(one.kbId, encodeCursor(`${ms}-${seq + 1}`, one.kbId)), 400, '/v1/knowledge-bases', { fields: ['after'] });
    expectErrorBody(await read(one.kbId, encodeCursor(`${ms + 60_000}-0`)), 400, '/v1/knowledge-bases', { fields: ['after'] });
    const earlier = await read(one.kbId, encodeCursor('0-0'));
    expect(earlier.status, earlier.text).toBe(200);
    expect(earlier.body.data.length).toBeGreaterThan(0);
    expect(earlier.body.nextCursor).toBe(oneCursor);
    expect((await read(one.kbId, encodeCursor(head!))).body).toMatchObject({ data: [], nextCursor: oneCursor });
  });

  it('writes nothing for the same metadata with its keys in another order, and the chunks again when a value changes', async () => {
    const key = await h.key('ws-bound-meta');
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify([{ text: prose(3000, 5), metadata: { team: 'desk', tier: 2, live: true } }])));
    await settled(kbId, key);
    const stream = h.store.keys.changes(kbId);
    const before = await h.redis.xlen(stream);
    expect((await patchMetadata(key, kbId, docs[0]!, { live: true, tier: 2, team: 'desk' })).status).toBe(200);
    expect(await h.redis.xlen(stream)).toBe(before);
    expect((await patchMetadata(key, kbId, docs[0]!, { live: true, tier: 3, team: 'desk' })).status).toBe(200);
    expect(await h.redis.xlen(stream)).toBe(2 * before);
  });

  it('tells every consumer of a deleted knowledge base that it is gone with one knowledge_base.deleted event, even past its retention', async () => {
    const key = await h.key('ws-bound-deleted');
    const { kbId } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify([prose(40_000, 6), prose(40_000, 7)])));
    await settled(kbId, key);
    const fresh = (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/chunks?size=1`, { key })).body.changesCursor as string;
    // A consumer whose cursor is past what the feed keeps.
    await h.redis.hset(h.store.keys.changesInfo(kbId), 'floor', (await h.redis.hget(h.store.keys.changesInfo(kbId), 'head'))!);
    const expired = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/changes?after=${encodeCursor('0-0', kbId)}`, { key });
    expect(expired.status).toBe(410);
    expect((await call(h.app, 'DELETE', `/v1/knowledge-bases/${kbId}`, { key })).status).toBe(204);
    // One event, whatever the knowledge base held.
    expect(await h.redis.xlen(h.store.keys.changes(kbId))).toBe(1);
    const gone: ChangeEvent[] = [{ type: 'knowledge_base.deleted', kbId }];
    for (const after of [encodeCursor('0-0', kbId), fresh]) {
      const res = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/changes?after=${after}`, { key });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ data: gone, hasMore: false });
      const after2 = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/changes?after=${res.body.nextCursor}`, { key });
      expect(after2.body).toMatchObject({ data: [], nextCursor: res.body.nextCursor });
    }
    expect((await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/changes`, { key: await h.key('ws-bound-stranger') })).status).toBe(403);
    expect((await call(h.app, 'GET', '/v1/usage', { key })).body.derivedBytes.changeFeeds).toBeLessThan(200);
    // Its bytes leave the workspace's tally once its retention has ended, at the workspace's next feed write.
    const tally = h.store.keys.workspaceFeedBytes('ws-bound-deleted');
    expect(Number(await h.redis.hget(tally, kbId))).toBe(64);
    await h.redis.zadd(h.store.keys.workspaceRetainedFeeds('ws-bound-deleted'), Date.now() - 1, kbId);
    const next = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['After the deletion.'])));
    await settled(next.kbId, key);
    // The tally is a short step after the finish's own script: the source may read ready a moment before it.
    await waitFor('the deleted feed to leave the tally', async () => (await h.redis.hget(tally, kbId)) === null || undefined);
    expect(Number(await h.redis.hget(tally, ':total'))).toBe(await feedBytes(next.kbId));
  }, 60_000);
});

describe('trimming a feed far past its bound', () => {
  it('drops about 4 MiB beside what was written per script, and comes back under the bound over the next calls', async () => {
    const { sourceFingerprint } = await import('../../shared/store/kb-records.js');
    // The same Redis, a store with the default bounds: a feed of about 7 MB.
    const prefix = `${h.prefix}big`;
    const big = createStore(h.redis, { prefix, blobTtlSeconds: 60 });
    const ws = 'ws-bound-step';
    const kbId = 'kb_bound_step';
    const text = prose(240_000, 8);
    const chunks = [];
    for (let at = 0, index = 0; at < text.length; at += 2000, index++) {
      const end = Math.min(text.length, at + 2000);
      chunks.push({ index, charStart: at, charEnd: end, byteStart: at, byteEnd: end, tokens: 500, headings: [] });
    }
    const documentId = 'doc_bound_step_000000';
    const now = () => new Date().toISOString();
    await big.kbs.create({ workspaceId: ws, kbId, name: 'big', sources: [{ documentId, type: 'text', content: text, fingerprint: sourceFingerprint({ type: 'text', content: text }) }], now: now() });
    await big.kbs.startSourceReport({ kbId, documentId, run: 1 }, { now: now() });
    await big.kbs.finishSourceReport({ kbId, documentId, run: 1 }, { status: 'ready', text, markdown: text, chunks, truncated: false }, { now: now() });
    for (let i = 0; i < 28; i++) await big.kbs.setMetadata({ workspaceId: ws, kbId, documentId }, { round: i }, now());
    const held = async () => Number(await h.redis.hget(big.keys.changesInfo(kbId), 'bytes'));
    const before = await held();
    expect(before).toBeGreaterThan(6 * MIB);

    // Lowered to 1 MiB: each read trims once, by at most the step.
    const small = createStore(h.redis, { prefix, blobTtlSeconds: 60, changes: { maxBytes: MIB } });
    const seen = [before];
    for (let i = 0; i < 4 && seen.at(-1)! > MIB; i++) {
      await small.changes.read(ws, kbId, undefined, 1).catch(() => undefined);
      seen.push(await held());
    }
    // The step, and the event that reaches past it.
    for (let i = 1; i < seen.length; i++) expect(seen[i - 1]! - seen[i]!).toBeLessThanOrEqual(4 * MIB + 8192);
    expect(seen[1]).toBeLessThan(before);
    expect(seen.at(-1)).toBeLessThanOrEqual(MIB);
    expect(seen.length).toBeGreaterThan(2);
  }, 60_000);
});
