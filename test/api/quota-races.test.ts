import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { filePart, multipartForm, nameField, textsField } from '../helpers/multipart-body.js';
import { waitFor } from '../helpers/wait.js';
import { call, createKb, patchKb } from './support.js';

const KB_PATH = '/v1/knowledge-bases';
const MiB = 1024 * 1024;
let h: Harness;

beforeAll(async () => {
  // The review's probe: 3 knowledge bases; each other test sets its workspace's own quotas.
  // Twelve uploads of one key at once pass the upload gate.
  h = await createHarness({ QUOTA_KNOWLEDGE_BASES: '3', MAX_UPLOADS_PER_KEY: '16' });
});
afterAll(async () => h.close());

type Used = { used: number; limit: number | null };
const usage = async (key: string) => (await call(h.app, 'GET', '/v1/usage', { key })).body as { knowledgeBases: Used; storedBytes: Used; sourcesInFlight: Used };
const statuses = (list: { status: number }[]) => list.map((r) => r.status).sort((a, b) => a - b);
const count = (list: { status: number }[], status: number) => list.filter((r) => r.status === status).length;

describe('quotas under concurrent requests', () => {
  it('creates exactly 3 knowledge bases from 20 concurrent POSTs under a quota of 3', async () => {
    const key = await h.key('ws-race-kbs');
    const posts = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(h.app, 'POST', KB_PATH, { key, body: multipartForm([nameField(`kb ${i}`), textsField([`text ${i}`])]) })),
    );
    expect(count(posts, 201), JSON.stringify(statuses(posts))).toBe(3);
    expect(count(posts, 409)).toBe(17);
    expect((await h.store.kbs.list('ws-race-kbs', 0, 50)).total).toBe(3);
    expect((await usage(key)).knowledgeBases).toEqual({ used: 3, limit: 3 });
  });

  it('leaves at most 10 sources after 20 concurrent one-text PATCHes under a per-knowledge-base quota of 10', async () => {
    const key = await h.key('ws-race-sources');
    await h.store.quotas.set('ws-race-sources', { sourcesPerKnowledgeBase: 10 });
    const kb = await createKb(h, key, 'Race');
    const patches = await Promise.all(Array.from({ length: 20 }, (_, i) => patchKb(h, key, kb.kbId, [textsField([`text ${i}`])])));
    const now = (await call(h.app, 'GET', `${KB_PATH}/${kb.kbId}`, { key })).body as { files: unknown[] };
    expect(now.files.length).toBeLessThanOrEqual(10);
    expect(now.files).toHaveLength(count(patches, 200));
    expect(count(patches, 200)).toBe(10);
    expect(count(patches, 200) + count(patches, 409)).toBe(20);
  });

  it('stores at most 2 MiB from 12 concurrent 400 KB uploads under a 2 MiB stored-bytes quota', async () => {
    const key = await h.key('ws-race-bytes');
    await h.store.quotas.set('ws-race-bytes', { storedBytes: 2 * MiB });
    const kb = await createKb(h, key, 'Bytes');
    const uploads = await Promise.all(
      Array.from({ length: 12 }, (_, i) => patchKb(h, key, kb.kbId, [filePart(`f${i}.txt`, `${i} `.padEnd(400 * 1024, 'x'))])),
    );
    const used = (await usage(key)).storedBytes.used;
    expect(used, JSON.stringify(statuses(uploads))).toBeLessThanOrEqual(2 * MiB);
    expect(used).toBe(count(uploads, 200) * 400 * 1024);
    expect(count(uploads, 200) + count(uploads, 413), JSON.stringify(uploads.map((u) => [u.status, u.body?.message]))).toBe(12);
    // Five fit (2,048,000 bytes), a sixth would not. (On a loaded machine one may be refused while
    // others still sit between their commit and its settle after its last fresh read: never more pass.)
    expect(count(uploads, 200)).toBeGreaterThanOrEqual(4);
  });

  it('keeps at most 5 sources in flight from 20 concurrent PATCHes over two knowledge bases under a quota of 5', async () => {
    const key = await h.key('ws-race-flight');
    await h.store.quotas.set('ws-race-flight', { sourcesInFlight: 5 });
    const kbs = [await createKb(h, key, 'One'), await createKb(h, key, 'Two')];
    const patches = await Promise.all(Array.from({ length: 20 }, (_, i) => patchKb(h, key, kbs[i % 2]!.kbId, [textsField([`text ${i}`])])));
    expect((await usage(key)).sourcesInFlight.used, JSON.stringify(statuses(patches))).toBeLessThanOrEqual(5);
    expect(count(patches, 200)).toBeGreaterThanOrEqual(4);
    expect(patches.filter((r) => r.status === 429).every((r) => Number(r.headers.get('retry-after')) > 0)).toBe(true);
  });
});

describe('the knowledge-base count', () => {
  it('stops counting an index entry whose commit never came (a process that died between the two)', async () => {
    const key = await h.key('ws-race-dangling');
    for (const name of ['a', 'b']) expect((await call(h.app, 'POST', KB_PATH, { key, body: multipartForm([nameField(name)]) })).status).toBe(201);
    await h.redis.zadd(h.store.keys.workspaceKbs('ws-race-dangling'), Date.now() - 120_000, 'kb_never_committed');
    const res = await call(h.app, 'POST', KB_PATH, { key, body: multipartForm([nameField('c')]) });
    expect(res.status, res.text).toBe(201);
    expect(await h.redis.zcard(h.store.keys.workspaceKbs('ws-race-dangling'))).toBe(3);
  });
});

describe('a reservation', () => {
  it('is given back when its request fails after taking it, so the next request passes', async () => {
    const key = await h.key('ws-race-release');
    await h.store.quotas.set('ws-race-release', { storedBytes: 10 });
    const kb = await createKb(h, key, 'Release');
    const etag = (await call(h.app, 'GET', `${KB_PATH}/${kb.kbId}`, { key })).headers.get('etag')!;
    // A PATCH at that revision whose body ends only after a rename: it reserves its 8 bytes, then its commit refuses it (412).
    const form = new Request('http://x/', { method: 'POST', body: multipartForm([textsField(['12345678'])]) });
    const bytes = new Uint8Array(await form.arrayBuffer());
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(bytes.subarray(0, 16));
        await gate;
        controller.enqueue(bytes.subarray(16));
        controller.close();
      },
    });
    const slow = h.app.request(`${KB_PATH}/${kb.kbId}`, {
      method: 'PATCH',
      body,
      headers: { 'X-API-Key': key, 'content-type': form.headers.get('content-type')!, 'If-Match': etag },
      duplex: 'half',
    } as RequestInit);
    expect((await patchKb(h, key, kb.kbId, [nameField('Renamed')])).status).toBe(200);
    finish();
    expect((await slow).status).toBe(412);
    const next = await patchKb(h, key, kb.kbId, [textsField(['abcdefgh'])]);
    expect(next.status, next.text).toBe(200);
    expect((await usage(key)).storedBytes.used).toBe(8);
  });

  it('lapses by itself when its request never ends it (a process that died)', async () => {
    const workspaceId = 'ws-race-lapse';
    const reserve = (ttlMs: number) =>
      h.store.quotas.reserve({ workspaceId, id: randomUUID(), seen: 0, held: { bytes: 0, sources: 0 }, limits: { bytes: 10 }, adding: { bytes: 10, sources: 1 }, partial: false, ttlMs, keepMs: 100 });
    expect((await reserve(300)).kind).toBe('ok');
    expect((await h.store.quotas.reserve({ workspaceId, id: randomUUID(), seen: await h.store.quotas.holdsEpoch(workspaceId), held: { bytes: 0, sources: 0 }, limits: { bytes: 10 }, adding: { bytes: 1, sources: 1 }, partial: false, ttlMs: 300, keepMs: 100 })).kind).toBe('bytes');
    // Past its life it is settled (its request may have committed), then dropped once the settle is kept no longer.
    await waitFor('the reservation to lapse', async () => {
      const seen = await h.store.quotas.holdsEpoch(workspaceId);
      const reply = await h.store.quotas.reserve({ workspaceId, id: randomUUID(), seen, held: { bytes: 0, sources: 0 }, limits: { bytes: 10 }, adding: { bytes: 10, sources: 1 }, partial: false, ttlMs: 60_000, keepMs: 100 });
      return reply.kind === 'ok';
    }, { timeoutMs: 10_000 });
  });

  it('counts a commit settled after a request summed the workspace, so the request cannot pass the quota with it', async () => {
    const workspaceId = 'ws-race-settled';
    const limits = { sources: 2 };
    const base = { workspaceId, held: { bytes: 0, sources: 0 }, limits, partial: false, ttlMs: 60_000, keepMs: 30_000 };
    const warm = randomUUID();
    await h.store.quotas.reserve({ ...base, id: warm, seen: 0, adding: { bytes: 0, sources: 1 } });
    await h.store.quotas.settle(workspaceId, warm, false, 30_000);
    // A reads the epoch and sums the workspace (nothing yet); B reserves, commits and settles meanwhile.
    const seenByA = await h.store.quotas.holdsEpoch(workspaceId);
    const b = randomUUID();
    expect((await h.store.quotas.reserve({ ...base, id: b, seen: seenByA, adding: { bytes: 0, sources: 2 } })).kind).toBe('ok');
    await h.store.quotas.settle(workspaceId, b, true, 30_000);
    // A's stale sum misses B's commit; the settle it did not see is counted for it.
    const a = await h.store.quotas.reserve({ ...base, id: randomUUID(), seen: seenByA, adding: { bytes: 0, sources: 1 } });
    expect(a).toEqual({ kind: 'in_flight', used: 2, recount: 1 });
    // Its sum alone would leave room, so it is asked to read again; on its last attempt it is refused.
    const lastTry = await h.store.quotas.reserve({ ...base, id: randomUUID(), seen: seenByA, adding: { bytes: 0, sources: 1 }, last: true });
    expect(lastTry).toEqual({ kind: 'in_flight', used: 2, recount: 0 });
    // A reader after the settle sums the commit itself and is not charged for it twice.
    const fresh = await h.store.quotas.reserve({ ...base, id: randomUUID(), seen: await h.store.quotas.holdsEpoch(workspaceId), adding: { bytes: 0, sources: 2 } });
    expect(fresh.kind).toBe('ok');
  });
});
