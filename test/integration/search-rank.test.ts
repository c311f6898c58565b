import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SeededRandom } from '../../scripts/lib/seeded-random.js';
import { chunkView } from '../../shared/chunking/chunk-view.js';
import type { Chunk, StoredChunk } from '../../shared/schemas/chunk.js';
import { rankChunks, SCORING, type Postings } from '../../shared/search/rank.js';
import { termCounts, type Stem } from '../../shared/search/tokenize.js';
import { sourceFingerprint, type NewSource } from '../../shared/store/kb-records.js';
import { CHUNK_BATCH, FEED_BATCH, SOURCE_BATCH, TEXT_SPAN } from '../../shared/search/search-index.js';
import { createStore, type Store } from '../../shared/store/index.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

let server: RedisServerHandle;
let redis: Redis;
let store: Store;
const WS = 'ws_rank';
const kbId = 'kb_rank';
const now = () => new Date().toISOString();
const random = new SeededRandom(4242);
const vocabulary = Array.from({ length: 60 }, (_, i) => `w${i}x`);
// Skewed draws, so some terms are in most chunks and others in a few.
const word = () => vocabulary[Math.floor(vocabulary.length * random.next() ** 2)]!;

beforeAll(async () => {
  server = await startRedisServer();
  redis = new Redis(server.url);
  store = createStore(redis, { prefix: 'rank', blobTtlSeconds: 3600, stemmer: 'none' });
  await store.kbs.create({ workspaceId: WS, kbId, name: 'Rank', sources: [], now: now() });
});
afterAll(async () => {
  redis.disconnect();
  await server.stop();
});

let next = 0;
/** Adds a ready source of `count` chunks of about `words` words each under two-word headings. */
async function addSource(count: number, words: number): Promise<string> {
  const content = `source ${next}`;
  const source: NewSource = { documentId: `doc_rank${next++}`, type: 'text', content, fingerprint: sourceFingerprint({ type: 'text', content }) };
  await store.kbs.addSources({ workspaceId: WS, kbId, sources: [source], now: now() });
  let markdown = '';
  const chunks: StoredChunk[] = [];
  for (let index = 0; index < count; index++) {
    const body = Array.from({ length: random.int(Math.ceil(words / 4), words) }, word).join(' ');
    const start = Buffer.byteLength(markdown);
    markdown += `${body}\n\n`;
    chunks.push({ index, charStart: start, charEnd: start + body.length, byteStart: start, byteEnd: start + body.length, tokens: 10, headings: [word(), word()] });
  }
  const ref = { kbId, documentId: source.documentId, run: 1 };
  await store.kbs.startSourceReport(ref, { now: now() });
  await store.kbs.finishSourceReport(ref, { status: 'ready', text: markdown, markdown, chunks, truncated: false }, { now: now() });
  return source.documentId;
}

/** Every chunk of the knowledge base as the API shows it. */
async function allChunks(): Promise<Chunk[]> {
  const out: Chunk[] = [];
  for (const documentId of await store.kbs.sourceIds(kbId)) {
    const source = await store.kbs.getSource(kbId, documentId);
    if (source?.status !== 'ready') continue;
    for (const c of await store.kbs.chunkRange(kbId, documentId, 0, 10_000)) out.push(chunkView(kbId, source, c));
  }
  return out;
}

/** The exhaustive BM25 of rank.ts over every chunk, as the reference. */
function reference(chunks: Chunk[], terms: string[], k: number, stem: Stem): { id: string; score: number }[] {
  const rows = chunks.map((c) => ({ id: c.id, body: termCounts(c.text, stem), heading: termCounts(c.headings.join('\n'), stem) }));
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  const totals = { n: rows.length, bodyLength: rows.reduce((a, r) => a + sum(r.body), 0), headingLength: rows.reduce((a, r) => a + sum(r.heading), 0) };
  const postings: Postings[] = terms.map((t) => {
    const p: Postings = {};
    for (const r of rows) if (r.body.has(t) || r.heading.has(t)) p[r.id] = `${r.body.get(t) ?? 0},${r.heading.get(t) ?? 0},${sum(r.body)},${sum(r.heading)}`;
    return p;
  });
  return rankChunks(postings, totals, SCORING.weight).slice(0, k);
}

/** Runs `queries` random queries through the index and through the reference; they must agree. */
async function expectSameRanking(queries: number, documentIds?: string[]): Promise<void> {
  const stem = await store.search.stem();
  const chunks = await allChunks();
  const visible = documentIds ? chunks.filter((c) => documentIds.includes(c.documentId)) : chunks;
  for (let q = 0; q < queries; q++) {
    const terms = [...new Set(Array.from({ length: random.int(1, 3) }, word))];
    const k = random.int(1, 12);
    const got = (await store.search.rank(WS, kbId, { terms, k, documentIds })).map((r) => ({ id: r.id, score: r.score }));
    // The reference ranks the filtered chunks with the whole index's statistics, as the index does.
    const ranked = reference(chunks, terms, chunks.length, stem).filter((r) => visible.some((c) => c.id === r.id));
    const want = ranked.slice(0, k);
    expect(got.map((r) => r.score)).toHaveLength(want.length);
    got.forEach((r, i) => {
      expect(r.score, `${terms.join(' ')} #${i}`).toBeCloseTo(want[i]!.score, 9);
      // Equal scores may come in either order (the last digits of floating point, the order of ids); others must match.
      const tied = ranked.some((w, j) => j !== i && Math.abs(w.score - want[i]!.score) < 1e-9);
      if (!tied) expect(r.id, `${terms.join(' ')} #${i}`).toBe(want[i]!.id);
    });
  }
}

describe("the search index's ranking", () => {
  it('gives the same top k as exhaustive BM25 with heading weight, while the average length moves, and under a filter', async () => {
    const docs = [await addSource(60, 40), await addSource(60, 40), await addSource(60, 40)];
    await expectSameRanking(25);
    // Much longer chunks raise the average above the one the postings were scored with.
    docs.push(await addSource(40, 200));
    await expectSameRanking(25);
    await store.kbs.deleteSource({ workspaceId: WS, kbId, documentId: docs[3]! }, now());
    await store.kbs.deleteSource({ workspaceId: WS, kbId, documentId: docs[0]! }, now());
    docs.push(await addSource(30, 12));
    await expectSameRanking(25);
    await expectSameRanking(10, [docs[1]!, docs[4]!]);
  });

  it('answers a caught-up index without a script and with short reads, and catches up first when the feed has moved', async () => {
    const stem = await store.search.stem();
    await store.search.rank(WS, kbId, { terms: [stem('w0x')], k: 3 });
    const sent = await monitored(() => store.search.rank(WS, kbId, { terms: [stem('w0x'), stem('w1x')], k: 10 }));
    expect(sent.some((c) => c[0] === 'evalsha' || c[0] === 'eval')).toBe(false);
    expect(new Set(sent.map((c) => c[0]))).toEqual(new Set(['hget', 'hgetall', 'lindex', 'getrange']));

    const unique = 'zzunique';
    expect(await store.search.rank(WS, kbId, { terms: [unique], k: 3 })).toEqual([]);
    const added = await addSourceWith(`${unique} words here`);
    const hits = await store.search.rank(WS, kbId, { terms: [unique], k: 3 });
    expect(hits.map((h) => h.documentId)).toEqual([added]);
    expect(hits[0]!.text).toBe(`${unique} words here`);
  });

  it('builds an index from the chunks in slices of CHUNK_BATCH and catches up in pages of FEED_BATCH', async () => {
    const big = await addSource(CHUNK_BATCH + 150, 30);
    const fresh = createStore(redis, { prefix: 'rank', blobTtlSeconds: 3600, stemmer: 'none' });
    const stem = await fresh.search.stem();
    const built = await monitored(() => fresh.search.rank(WS, kbId, { terms: [stem('w0x')], k: 3 }));
    const ranges = built.filter((c) => c[0] === 'lrange').map((c) => Number(c[3]) - Number(c[2]) + 1);
    expect(ranges.length).toBeGreaterThan(1);
    expect(Math.max(...ranges)).toBeLessThanOrEqual(Math.max(CHUNK_BATCH, SOURCE_BATCH));
    expect(built.filter((c) => c[0] === 'lrange' && c[1]!.includes(big)).map((c) => Number(c[3]) - Number(c[2]) + 1)).toEqual([CHUNK_BATCH, CHUNK_BATCH]);
    // A slice's texts are one range of the Markdown, at most TEXT_SPAN bytes.
    const building = built.slice(0, built.findIndex((c) => c[0] === 'lindex'));
    const texts = building.filter((c) => c[0] === 'getrange' && c[1]!.includes(big)).map((c) => Number(c[3]) - Number(c[2]) + 1);
    expect(texts).toHaveLength(2);
    expect(Math.max(...texts)).toBeLessThanOrEqual(TEXT_SPAN);
    // A new source's chunks are events the index has not seen: the catch-up reads them a page at a time.
    const added = FEED_BATCH + 50;
    await addSource(added, 30);
    const caught = await monitored(() => fresh.search.rank(WS, kbId, { terms: [stem('w0x')], k: 3 }));
    const reads = caught.filter((c) => c[0] === 'evalsha' || c[0] === 'eval');
    expect(reads.length).toBe(Math.ceil(added / FEED_BATCH));
    await expectSameRanking(5);
  });

  it("searches a chunk without headings after its source's metadata changed (its index entry replaced)", async () => {
    const doc = await addSourceWith('plain kiwi text without any heading');
    expect((await store.search.rank(WS, kbId, { terms: ['kiwi'], k: 3 })).map((h) => h.documentId)).toEqual([doc]);
    await store.kbs.setMetadata({ workspaceId: WS, kbId, documentId: doc }, { team: 'birds' }, now());
    const hits = await store.search.rank(WS, kbId, { terms: ['kiwi'], k: 3 });
    expect(hits.map((h) => h.documentId)).toEqual([doc]);
    expect(JSON.parse(hits[0]!.record.metadata!)).toEqual({ team: 'birds' });
    expect(await store.search.rank(WS, kbId, { terms: ['kiwi'], k: 3, metadata: { team: 'birds' } })).toHaveLength(1);
  });

  it('rebuilds an index found to name a chunk that is not where it says, and one it no longer holds', async () => {
    const stem = await store.search.stem();
    const terms = [stem('w2x')];
    const want = (await store.search.rank(WS, kbId, { terms, k: 5 })).map((h) => [h.id, h.score]);
    const [documentId] = await store.kbs.sourceIds(kbId);
    const idx = await store.search.current(WS, kbId);
    // A wrong entry that outranks every real one, at the place of a real chunk.
    idx.upsert({ id: 'chk_bogus', documentId: documentId!, index: 0, text: Array(500).fill('w2x').join(' '), headings: [] }, stem);
    expect((await store.search.rank(WS, kbId, { terms, k: 5 })).map((h) => [h.id, h.score])).toEqual(want);
    expect(await store.search.current(WS, kbId)).not.toBe(idx);
    store.search.forget(kbId);
    expect((await store.search.rank(WS, kbId, { terms, k: 5 })).map((h) => [h.id, h.score])).toEqual(want);
  });

  it('gives the same answers on a second process that built its index from the chunks after the changes', async () => {
    const other = createStore(redis, { prefix: 'rank', blobTtlSeconds: 3600, stemmer: 'none' });
    const stem = await store.search.stem();
    for (let q = 0; q < 20; q++) {
      const terms = [...new Set(Array.from({ length: random.int(1, 3) }, word))].map(stem);
      const k = random.int(1, 20);
      const here = await store.search.rank(WS, kbId, { terms, k });
      expect(await other.search.rank(WS, kbId, { terms, k })).toEqual(here);
    }
  });

  it('removes the index an earlier version kept in Redis on the first search, a slice of terms a command', async () => {
    const postings = store.keys.searchPostingsPrefix(kbId);
    const terms = Array.from({ length: 450 }, (_, i) => `t${i}`);
    // A state left by the -0 refusal: half applied, its position behind the feed.
    await redis.hset(store.keys.searchState(kbId), { cursor: '1-0', n: '3', bodyLength: '-0' });
    await redis.hset(store.keys.searchDocs(kbId), { chk_a: '1 0 doc 0\n[]' });
    await redis.sadd(store.keys.searchTerms(kbId), ...terms);
    for (const t of terms) await redis.zadd(postings + t, 1, 'chk_a');
    const fresh = createStore(redis, { prefix: 'rank', blobTtlSeconds: 3600, stemmer: 'none' });
    const sent = await monitored(() => fresh.search.rank(WS, kbId, { terms: ['w0x'], k: 3 }));
    expect(await redis.exists(store.keys.searchState(kbId), store.keys.searchDocs(kbId), store.keys.searchTerms(kbId))).toBe(0);
    expect(await redis.exists(...terms.map((t) => postings + t))).toBe(0);
    const unlinks = sent.filter((c) => c[0] === 'unlink').map((c) => c.length - 1);
    expect(Math.max(...unlinks)).toBeLessThanOrEqual(200);
  });
});

describe('the indexes a process holds', () => {
  it('drops the least recently searched past the byte budget, and refuses a knowledge base whose index alone passes it', async () => {
    const stem = await store.search.stem();
    const one = await store.search.current(WS, kbId);
    // Room for this index and not for another beside it, even an empty one.
    const budget = one.bytes + 1000;
    const small = createStore(redis, { prefix: 'rank', blobTtlSeconds: 3600, stemmer: 'none', searchCacheBytes: budget });
    const other = 'kb_rank_other';
    await store.kbs.create({ workspaceId: WS, kbId: other, name: 'Other', sources: [], now: now() });
    await small.search.rank(WS, kbId, { terms: [stem('w0x')], k: 3 });
    const held = await small.search.current(WS, kbId);
    expect(small.search.heldBytes).toBe(held.bytes);
    await small.search.rank(WS, other, { terms: [stem('w0x')], k: 3 });
    // The big one was searched least recently and went; it is built again on its next search, and the other goes.
    expect(small.search.heldBytes).toBeLessThanOrEqual(budget);
    const again = await small.search.current(WS, kbId);
    expect(again).not.toBe(held);
    expect(small.search.heldBytes).toBe(again.bytes);
    expect((await small.search.rank(WS, kbId, { terms: [stem('w0x')], k: 3 })).length).toBe(3);

    const tiny = createStore(redis, { prefix: 'rank', blobTtlSeconds: 3600, stemmer: 'none', searchCacheBytes: 64 * 1024 });
    await expect(tiny.search.rank(WS, kbId, { terms: [stem('w0x')], k: 3 })).rejects.toMatchObject({ code: 'unavailable' });
  });
});

/** The commands (lower-case name, then arguments) Redis received while `fn` ran. */
async function monitored(fn: () => Promise<unknown>): Promise<string[][]> {
  const monitor = await redis.monitor();
  const seen: string[][] = [];
  monitor.on('monitor', (_time: string, args: string[]) => seen.push([String(args[0]).toLowerCase(), ...args.slice(1).map(String)]));
  try {
    await fn();
    // MONITOR's stream trails the replies: a PING through it marks the end.
    await redis.ping('monitor-end');
    for (let i = 0; i < 100 && !seen.some((c) => c[0] === 'ping'); i++) await new Promise((r) => setTimeout(r, 10));
  } finally {
    monitor.disconnect();
  }
  return seen.filter((c) => c[0] !== 'ping');
}

async function addSourceWith(text: string): Promise<string> {
  const content = `source ${next}`;
  const source: NewSource = { documentId: `doc_rank${next++}`, type: 'text', content, fingerprint: sourceFingerprint({ type: 'text', content }) };
  await store.kbs.addSources({ workspaceId: WS, kbId, sources: [source], now: now() });
  const chunks: StoredChunk[] = [{ index: 0, charStart: 0, charEnd: text.length, byteStart: 0, byteEnd: text.length, tokens: 3, headings: [] }];
  const ref = { kbId, documentId: source.documentId, run: 1 };
  await store.kbs.startSourceReport(ref, { now: now() });
  await store.kbs.finishSourceReport(ref, { status: 'ready', text, markdown: text, chunks, truncated: false }, { now: now() });
  return source.documentId;
}
