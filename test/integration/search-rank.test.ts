import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SeededRandom } from '../../scripts/lib/seeded-random.js';
import { chunkView } from '../../shared/chunking/chunk-view.js';
import type { Chunk, StoredChunk } from '../../shared/schemas/chunk.js';
import { rankChunks, SCORING, type Postings } from '../../shared/search/rank.js';
import { termCounts, type Stem } from '../../shared/search/tokenize.js';
import { sourceFingerprint, type NewSource } from '../../shared/store/kb-records.js';
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
  await store.kbs.startSource(ref, { now: now() });
  await store.kbs.finishSource(ref, { status: 'ready', text: markdown, markdown, chunks, truncated: false }, { now: now() });
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

describe('the search index ranking in Redis', () => {
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

  it('answers a caught-up index in one script call, and catches up first when the feed has moved', async () => {
    const stem = await store.search.stem();
    await store.search.rank(WS, kbId, { terms: [stem('w0x')], k: 3 });
    const before = await commandCalls();
    await store.search.rank(WS, kbId, { terms: [stem('w0x')], k: 3 });
    const after = await commandCalls();
    expect((after.evalsha ?? 0) - (before.evalsha ?? 0) + (after.eval ?? 0) - (before.eval ?? 0)).toBe(1);

    const unique = 'zzunique';
    expect(await store.search.rank(WS, kbId, { terms: [unique], k: 3 })).toEqual([]);
    const added = await addSourceWith(`${unique} words here`);
    const hits = await store.search.rank(WS, kbId, { terms: [unique], k: 3 });
    expect(hits.map((h) => h.documentId)).toEqual([added]);
    expect(hits[0]!.text).toBe(`${unique} words here`);
  });
});

/** Calls per command so far (INFO commandstats), commands run by scripts included. */
async function commandCalls(): Promise<Record<string, number>> {
  const info = await redis.info('commandstats');
  return Object.fromEntries([...info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)].map((m) => [m[1]!, Number(m[2])]));
}

async function addSourceWith(text: string): Promise<string> {
  const content = `source ${next}`;
  const source: NewSource = { documentId: `doc_rank${next++}`, type: 'text', content, fingerprint: sourceFingerprint({ type: 'text', content }) };
  await store.kbs.addSources({ workspaceId: WS, kbId, sources: [source], now: now() });
  const chunks: StoredChunk[] = [{ index: 0, charStart: 0, charEnd: text.length, byteStart: 0, byteEnd: text.length, tokens: 3, headings: [] }];
  const ref = { kbId, documentId: source.documentId, run: 1 };
  await store.kbs.startSource(ref, { now: now() });
  await store.kbs.finishSource(ref, { status: 'ready', text, markdown: text, chunks, truncated: false }, { now: now() });
  return source.documentId;
}
