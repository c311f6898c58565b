import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../shared/schemas/changes.js';
import type { Chunk } from '../../shared/schemas/chunk.js';
import type { RunningWorker } from '../../worker/main.js';
import { SeededRandom } from '../../scripts/lib/seeded-random.js';
import { decodeCursor } from '../../shared/feed/cursor.js';
import { eventId } from '../../shared/webhooks/webhook-events.js';
import { call, expectErrorBody } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';
import { createKbWith, startTestWorker, waitForDocument } from '../helpers/worker-harness.js';

let h: Harness;
let key: string;
let worker: RunningWorker;
let origin: Server;
const pages = new Map<string, string>();

beforeAll(async () => {
  // The origin is on loopback, which URL sources may reach only with this switch (as in a local demo).
  h = await createHarness({ URL_FETCH_ALLOW_PRIVATE: 'true' });
  key = await h.key('ws-feed');
  origin = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(pages.get(req.url ?? '') ?? '<html><body><p>Nothing here yet.</p></body></html>');
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  worker = await startTestWorker(h);
});
afterAll(async () => {
  await worker.close();
  origin.close();
  await h.close();
});

const urlOf = (path: string): string => `http://127.0.0.1:${(origin.address() as AddressInfo).port}${path}`;
const note = (n: number, words = 6) => `# Note ${n}\n\n${`Entry ${n} of the ledger is written out here in plain words. `.repeat(words + (n % 4) * 3)}`;

/** A vector store stand-in: chunks by id, kept by applying the feed. */
class Consumer {
  readonly chunks = new Map<string, Chunk>();
  cursor: string | undefined;
  events: ChangeEvent[] = [];

  apply(events: ChangeEvent[]): void {
    for (const e of events) {
      if (e.type === 'chunk.upserted') this.chunks.set(e.chunk.id, e.chunk);
      else if (e.type === 'chunk.deleted') this.chunks.delete(e.chunkId);
      else this.chunks.clear();
    }
  }

  /** Reads the feed to its end from the stored cursor; returns what this read saw. */
  async follow(kbId: string, size = 50, apiKey = key): Promise<ChangeEvent[]> {
    const seen: ChangeEvent[] = [];
    for (;;) {
      const q = this.cursor ? `&after=${this.cursor}` : '';
      const res = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/changes?size=${size}${q}`, { key: apiKey });
      expect(res.status, res.text).toBe(200);
      seen.push(...res.body.data);
      this.apply(res.body.data);
      this.cursor = res.body.nextCursor;
      if (!res.body.hasMore) break;
    }
    this.events.push(...seen);
    return seen;
  }
}

async function listing(kbId: string): Promise<{ chunks: Chunk[]; changesCursor: string }> {
  const chunks: Chunk[] = [];
  let after: string | null = null;
  let changesCursor = '';
  do {
    const q: string = after ? `&after=${after}` : '';
    const res = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/chunks?size=100${q}`, { key });
    expect(res.status, res.text).toBe(200);
    chunks.push(...res.body.data);
    changesCursor ||= res.body.changesCursor;
    after = res.body.nextCursor;
  } while (after);
  return { chunks, changesCursor };
}

async function settled(kbId: string, apiKey = key): Promise<void> {
  await waitFor(`knowledge base ${kbId} to settle`, async () => {
    const kb = (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key: apiKey })).body;
    return kb.status !== 'in_progress' && kb.files.every((s: { chunkCount?: number; status: string; chunking?: string }) => s.status !== 'ready' || s.chunkCount! > 0);
  });
}

const byId = (chunks: Iterable<Chunk>) => [...chunks].sort((a, b) => a.id.localeCompare(b.id));

describe('GET /v1/knowledge-bases/{kbId}/changes', () => {
  it('shows a new source as chunk.upserted events carrying the chunks exactly as GET …/chunks lists them', async () => {
    const { kbId } = await createKbWith(h, key, (f) => {
      f.set('knowledge_base_texts', JSON.stringify([{ title: 'Ledger', text: note(1, 30), metadata: { team: 'ops' } }]));
      f.set('chunk_max_tokens', '64');
    });
    await settled(kbId);
    const consumer = new Consumer();
    const events = await consumer.follow(kbId);
    expect(events.length).toBeGreaterThan(1);
    expect(events.every((e) => e.type === 'chunk.upserted')).toBe(true);
    expect(byId(consumer.chunks.values())).toEqual(byId((await listing(kbId)).chunks));
    const first = (events[0] as Extract<ChangeEvent, { type: 'chunk.upserted' }>).chunk;
    expect(first).toMatchObject({ title: 'Ledger', metadata: { team: 'ops' }, index: 0 });
    // Read to its end, the feed gives the same cursor back and nothing else.
    const again = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/changes?after=${consumer.cursor}`, { key });
    expect(again.body).toEqual({ data: [], nextCursor: consumer.cursor, hasMore: false });
  });

  it('shows every chunk of a source again with its new metadata after a metadata PATCH, and nothing when it is unchanged', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => {
      f.set('knowledge_base_texts', JSON.stringify([{ title: 'Ledger', text: note(2, 30), metadata: { team: 'ops' } }, note(3)]));
      f.set('chunk_max_tokens', '64');
    });
    await settled(kbId);
    const consumer = new Consumer();
    await consumer.follow(kbId);
    const patch = (metadata: unknown) =>
      call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}/documents/${docs[0]}`, { key, body: JSON.stringify({ metadata }), headers: { 'Content-Type': 'application/json' } });

    expect((await patch({ team: 'sales', tier: 2 })).status).toBe(200);
    const events = await consumer.follow(kbId);
    const ofSource = (await listing(kbId)).chunks.filter((c) => c.documentId === docs[0]);
    expect(ofSource.length).toBeGreaterThan(1);
    expect(events.map((e) => e.type === 'chunk.upserted' && e.chunk.id).sort()).toEqual(ofSource.map((c) => c.id).sort());
    expect(events.every((e) => e.type === 'chunk.upserted' && e.chunk.metadata?.team === 'sales' && e.chunk.metadata.tier === 2)).toBe(true);
    expect(byId(consumer.chunks.values())).toEqual(byId((await listing(kbId)).chunks));

    expect((await patch({ team: 'sales', tier: 2 })).status).toBe(200);
    expect(await consumer.follow(kbId)).toEqual([]);
    expect((await patch({})).status).toBe(200);
    const removed = await consumer.follow(kbId);
    expect(removed).toHaveLength(ofSource.length);
    expect(byId(consumer.chunks.values())).toEqual(byId((await listing(kbId)).chunks));
  });

  it('shows nothing for a refresh that yields the same chunks, and the changed and removed chunks for one that does not', async () => {
    pages.set('/faq', '<html><head><title>FAQ</title></head><body><h1>Opening hours</h1><p>We open at nine.</p><h1>Returns</h1><p>Within thirty days.</p></body></html>');
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_urls', JSON.stringify([urlOf('/faq')])));
    await waitForDocument(h, key, kbId, docs[0]!);
    const consumer = new Consumer();
    const before = await consumer.follow(kbId);
    expect(before.length).toBeGreaterThan(0);

    expect((await call(h.app, 'POST', `/v1/knowledge-bases/${kbId}/documents/${docs[0]}/refresh`, { key })).status).toBe(202);
    await waitForDocument(h, key, kbId, docs[0]!);
    expect(await consumer.follow(kbId)).toEqual([]);

    pages.set('/faq', '<html><head><title>FAQ</title></head><body><h1>Opening hours</h1><p>We open at eight.</p></body></html>');
    expect((await call(h.app, 'POST', `/v1/knowledge-bases/${kbId}/documents/${docs[0]}/refresh`, { key })).status).toBe(202);
    await waitFor('the refreshed text', async () => (await waitForDocument(h, key, kbId, docs[0]!)).text?.includes('eight') === true);
    const changed = await consumer.follow(kbId);
    expect(changed.some((e) => e.type === 'chunk.deleted')).toBe(true);
    expect(changed.some((e) => e.type === 'chunk.upserted' && e.chunk.text.includes('eight'))).toBe(true);
    expect(byId(consumer.chunks.values())).toEqual(byId((await listing(kbId)).chunks));
  });

  it('shows a re-chunk, a deleted source and a deleted knowledge base, whose feed the workspace can still read', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify([note(2, 40), note(3, 40)])));
    await settled(kbId);
    const consumer = new Consumer();
    await consumer.follow(kbId);
    const form = new FormData();
    form.set('chunk_max_tokens', '64');
    expect((await call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}`, { key, body: form })).status).toBe(200);
    await waitFor('the re-chunk', async () => (await listing(kbId)).chunks.every((c) => c.tokens <= 64));
    const rechunked = await consumer.follow(kbId);
    expect(rechunked.filter((e) => e.type === 'chunk.deleted').length).toBeGreaterThan(0);
    expect(rechunked.filter((e) => e.type === 'chunk.upserted').length).toBeGreaterThan(0);
    expect(byId(consumer.chunks.values())).toEqual(byId((await listing(kbId)).chunks));

    expect((await call(h.app, 'DELETE', `/v1/knowledge-bases/${kbId}/documents/${docs[0]}`, { key })).status).toBe(204);
    const removed = await consumer.follow(kbId);
    expect(removed.length).toBeGreaterThan(0);
    expect(removed.every((e) => e.type === 'chunk.deleted' && e.documentId === docs[0])).toBe(true);

    expect((await call(h.app, 'DELETE', `/v1/knowledge-bases/${kbId}`, { key })).status).toBe(204);
    const emptied = await consumer.follow(kbId);
    expect(emptied).toEqual([{ type: 'knowledge_base.deleted', kbId }]);
    expect(consumer.chunks.size).toBe(0);
    const other = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/changes`, { key: await h.key('ws-feed-other') });
    expect(other.status).toBe(403);
  });

  it("counts the feed and the search index in the workspace's usage, and a deleted knowledge base's feed until it expires", async () => {
    const own = await h.key('ws-feed-usage');
    const usage = async () => {
      const res = await call(h.app, 'GET', '/v1/usage', { key: own });
      expect(res.status, res.text).toBe(200);
      return res.body.derivedBytes as { changeFeeds: number; searchIndexes: number; outboxes: number };
    };
    expect(await usage()).toEqual({ changeFeeds: 0, searchIndexes: 0, outboxes: 0 });
    const { kbId } = await createKbWith(h, own, (f) => f.set('knowledge_base_texts', JSON.stringify([note(4, 40)])));
    await settled(kbId, own);
    const fed = await usage();
    expect(fed.changeFeeds).toBeGreaterThan(0);
    expect(fed.searchIndexes).toBe(0);

    const search = await call(h.app, 'POST', `/v1/knowledge-bases/${kbId}/search`, { key: own, body: JSON.stringify({ query: 'ledger entry' }), headers: { 'Content-Type': 'application/json' } });
    expect(search.status, search.text).toBe(200);
    // The search index is held by the API process: nothing of it in Redis to count.
    const indexed = await usage();
    expect(indexed.searchIndexes).toBe(0);

    expect((await call(h.app, 'DELETE', `/v1/knowledge-bases/${kbId}`, { key: own })).status).toBe(204);
    const deleted = await usage();
    expect(deleted.searchIndexes).toBe(0);
    expect(deleted.changeFeeds).toBeGreaterThan(0);
    const retained = h.store.keys.workspaceRetainedFeeds('ws-feed-usage');
    const expires = Number(await h.redis.zscore(retained, kbId));
    expect(expires).toBeGreaterThan(Date.now() + h.config.CHANGES_RETENTION_HOURS * 3_600_000 - 60_000);
    // Past its retention the feed is gone from Redis and from the usage.
    await h.redis.zadd(retained, Date.now() - 1, kbId);
    expect(await usage()).toEqual({ changeFeeds: 0, searchIndexes: 0, outboxes: 0 });
  });

  it('announces a metadata change, a deleted source and a deleted knowledge base as knowledge_base.changed with the range they wrote', async () => {
    const own = await h.key('ws-feed-events');
    const hook = await call(h.app, 'POST', '/v1/webhooks', {
      key: own,
      body: JSON.stringify({ url: urlOf('/hook'), events: ['knowledge_base.changed'] }),
      headers: { 'content-type': 'application/json' },
    });
    expect(hook.status, hook.text).toBe(201);
    const { kbId, docs } = await createKbWith(h, own, (f) => f.set('knowledge_base_texts', JSON.stringify([note(5, 30), note(6, 30)])));
    await settled(kbId, own);
    const consumer = new Consumer();
    await consumer.follow(kbId, 50, own);
    const announced = async (before: string) => {
      const events = await consumer.follow(kbId, 50, own);
      expect(events.length).toBeGreaterThan(0);
      // The worker's relay stores it and queues its deliveries shortly after the write.
      const id = eventId(kbId, 'changed', decodeCursor(consumer.cursor!));
      const stored = await waitFor('the event body stored for its deliveries', async () => (await h.store.webhooks.getEvent('ws-feed-events', id)) ?? undefined);
      expect(JSON.parse(stored!)).toMatchObject({ type: 'knowledge_base.changed', data: { kbId, afterCursor: before, toCursor: consumer.cursor } });
      return events;
    };

    let before = consumer.cursor!;
    const patch = (metadata: object) =>
      call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}/documents/${docs[1]}`, { key: own, body: JSON.stringify({ metadata }), headers: { 'content-type': 'application/json' } });
    expect((await patch({ team: 'ops' })).status).toBe(200);
    expect((await announced(before)).every((e) => e.type === 'chunk.upserted' && e.chunk.metadata?.team === 'ops')).toBe(true);

    before = consumer.cursor!;
    expect((await call(h.app, 'DELETE', `/v1/knowledge-bases/${kbId}/documents/${docs[0]}`, { key: own })).status).toBe(204);
    expect((await announced(before)).every((e) => e.type === 'chunk.deleted' && e.documentId === docs[0])).toBe(true);

    before = consumer.cursor!;
    expect((await call(h.app, 'DELETE', `/v1/knowledge-bases/${kbId}`, { key: own })).status).toBe(204);
    expect(await announced(before)).toEqual([{ type: 'knowledge_base.deleted', kbId }]);
  });

  it('leaves a consumer replaying the feed from the start with exactly the listed chunks after a seeded run of adds, refreshes, re-chunks and deletes', async () => {
    const random = new SeededRandom(2222);
    pages.set('/a', '<html><body><h1>Alpha</h1><p>First version of alpha.</p></body></html>');
    const { kbId } = await createKbWith(h, key, (f) => f.set('knowledge_base_urls', JSON.stringify([urlOf('/a')])));
    await settled(kbId);
    const live = new Consumer();
    let n = 10;
    for (let step = 0; step < 8; step++) {
      const files = (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).body.files as { documentId: string; type: string }[];
      const roll = random.int(0, 3);
      if (roll === 0 || files.length < 2) {
        const form = new FormData();
        form.set('knowledge_base_texts', JSON.stringify(Array.from({ length: random.int(1, 2) }, () => note(n++, random.int(4, 30)))));
        expect((await call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}`, { key, body: form })).status).toBe(200);
      } else if (roll === 1) {
        pages.set('/a', `<html><body><h1>Alpha</h1><p>${random.chance(0.5) ? 'First version of alpha.' : `Version ${step} of alpha.`}</p></body></html>`);
        const url = files.find((f) => f.type === 'url')!;
        expect((await call(h.app, 'POST', `/v1/knowledge-bases/${kbId}/documents/${url.documentId}/refresh`, { key })).status).toBe(202);
      } else if (roll === 2) {
        const form = new FormData();
        form.set('chunk_max_tokens', String(random.int(64, 200)));
        expect((await call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}`, { key, body: form })).status).toBe(200);
      } else {
        const victim = files.filter((f) => f.type === 'text')[0] ?? files[0]!;
        expect((await call(h.app, 'DELETE', `/v1/knowledge-bases/${kbId}/documents/${victim.documentId}`, { key })).status).toBe(204);
      }
      await settled(kbId);
      if (random.chance(0.5)) await live.follow(kbId, random.int(3, 40));
    }
    // The re-chunk job runs after the settings change; the listing is compared once every chunk has the last bound.
    const kb = (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).body;
    await waitFor('the last re-chunk', async () => (await listing(kbId)).chunks.every((c) => c.tokens <= kb.chunkMaxTokens));
    const expected = byId((await listing(kbId)).chunks);
    const replay = new Consumer();
    await replay.follow(kbId, 17);
    await live.follow(kbId);
    expect(byId(replay.chunks.values())).toEqual(expected);
    expect(byId(live.chunks.values())).toEqual(expected);
  });

  it('is readable with a read-only key, and refuses a cursor it did not give out', async () => {
    const { kbId } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify([note(40)])));
    await settled(kbId);
    const readOnly = await h.key('ws-feed', { readOnly: true });
    expect((await new Consumer().follow(kbId, 100, readOnly)).length).toBeGreaterThan(0);
    const bad = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/changes?after=nonsense`, { key });
    expectErrorBody(bad, 400, '/v1/knowledge-bases', { fields: ['after'] });
  });
});

describe('retention of the change feed', () => {
  it('answers 410 with a resync message for a cursor before the count cap, and the listing gives a cursor to go on from', async () => {
    const capped = await createHarness({ CHANGES_MAX_EVENTS: '100' });
    const capKey = await capped.key('ws-feed-cap');
    const capWorker = await startTestWorker(capped);
    try {
      const texts = Array.from({ length: 3 }, (_, i) => note(100 + i, 300));
      const form = new FormData();
      form.set('chunk_max_tokens', '64');
      form.set('knowledge_base_texts', JSON.stringify(texts));
      form.set('knowledge_base_name', 'capped');
      const created = await call(capped.app, 'POST', '/v1/knowledge-bases', { key: capKey, body: form });
      expect(created.status, created.text).toBe(201);
      const kbId = created.body.kbId as string;
      await waitFor('the capped knowledge base to settle', async () => (await call(capped.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key: capKey })).body.status === 'ready');
      // Reading from the start would miss the trimmed events: a new consumer starts from the listing instead.
      expectErrorBody(await call(capped.app, 'GET', `/v1/knowledge-bases/${kbId}/changes?size=1`, { key: capKey }), 410, '/v1/knowledge-bases', { message: 'any' });
      const total = (await capped.redis.xlen(capped.store.keys.changes(kbId))) as number;
      expect(total).toBeLessThanOrEqual(100);
      // More chunks than the cap: the oldest events went, so reading from the start has missed some.
      const chunkCount = (await call(capped.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key: capKey })).body.files.reduce((s: number, f: { chunkCount: number }) => s + f.chunkCount, 0);
      expect(chunkCount).toBeGreaterThan(100);
      const gone = await call(capped.app, 'GET', `/v1/knowledge-bases/${kbId}/changes?after=c1.${Buffer.from('1-0').toString('base64url')}`, { key: capKey });
      expectErrorBody(gone, 410, '/v1/knowledge-bases', { message: 'any' });
      expect(gone.body.message).toContain(`GET /v1/knowledge-bases/${kbId}/chunks`);
      const resync = await call(capped.app, 'GET', `/v1/knowledge-bases/${kbId}/chunks?size=5`, { key: capKey });
      const next = await call(capped.app, 'GET', `/v1/knowledge-bases/${kbId}/changes?after=${resync.body.changesCursor}`, { key: capKey });
      expect(next.status).toBe(200);
      expect(next.body.data).toEqual([]);
    } finally {
      await capWorker.close();
      await capped.close();
    }
  }, 90_000);

  it('answers 410 once the events after a cursor are older than the retention', async () => {
    const { kbId } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify([note(50)])));
    await settled(kbId);
    const { createStore } = await import('../../shared/store/index.js');
    // The same data read by a store whose retention is a millisecond: every event is past it.
    const shortLived = createStore(h.redis, { prefix: h.prefix, blobTtlSeconds: 60, changes: { retentionMs: 1, maxEvents: 1000 } });
    await new Promise((r) => setTimeout(r, 5));
    await expect(shortLived.changes.read('ws-feed', kbId, undefined, 10)).rejects.toMatchObject({ code: 'gone' });
    const head = await shortLived.changes.headCursor(kbId);
    await expect(shortLived.changes.read('ws-feed', kbId, head, 10)).resolves.toMatchObject({ data: [], nextCursor: head });
  });
});
