/**
 * Measures the change feed's size and the cost of its scripts on a throwaway
 * redis-server (the review's `feed-amp` probe shape and more):
 *   1. one 200 KB text: the feed's bytes against its chunks' bytes;
 *   2. metadata PATCHes of nine 750 KB texts: the feed's bytes against CHANGES_MAX_BYTES;
 *   3. a feed of 100,000 events: the slowest call of each feed script (SLOWLOG, threshold 0);
 *   4. a page of 1,000 events: its bytes.
 *
 *   npx tsx scripts/bench-feed.ts [--events 100000]
 *
 * Needs redis-server on PATH; about a minute.
 */
import { Redis } from 'ioredis';
import type { StoredChunk } from '../shared/schemas/chunk.js';
import { encodeCursor } from '../shared/feed/cursor.js';
import { feedEntries } from '../shared/feed/feed-entries.js';
import { sourceFingerprint, type NewSource } from '../shared/store/kb-records.js';
import { createStore, type Store } from '../shared/store/index.js';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { median } from './lib/bench-util.js';
import { SeededRandom } from './lib/seeded-random.js';

const WS = 'ws_bench_feed';
const args = process.argv.slice(2);
const EVENTS = Number(args[args.indexOf('--events') + 1] ?? 0) || 100_000;
const now = () => new Date().toISOString();
const random = new SeededRandom(34);
const WORDS = ['ledger', 'invoice', 'refund', 'desk', 'policy', 'return', 'window', 'carrier', 'parcel', 'warranty', 'claim', 'region', 'tier', 'account'];

/** `bytes` of prose cut into chunks of about `chunkChars` characters, as stored chunks. */
function textOf(bytes: number, chunkChars: number): { text: string; chunks: StoredChunk[] } {
  let text = '';
  const chunks: StoredChunk[] = [];
  while (text.length < bytes) {
    const start = text.length;
    let body = `## Section ${chunks.length}\n\n`;
    while (body.length < chunkChars) body += `${WORDS[random.int(0, WORDS.length - 1)]} `;
    text += `${body.trim()}\n\n`;
    const end = text.length - 2;
    chunks.push({ index: chunks.length, charStart: start, charEnd: end, byteStart: start, byteEnd: end, tokens: Math.ceil((end - start) / 4), headings: [`Section ${chunks.length}`] });
  }
  return { text, chunks };
}

const id = (kb: string, i: number) => `doc_${kb}${String(i).padStart(18 - kb.length, '0')}`;

/** A knowledge base with one ready text source per entry of `texts`. */
async function kbWith(store: Store, kbId: string, texts: { text: string; chunks: StoredChunk[] }[]): Promise<string[]> {
  const sources: NewSource[] = texts.map((t, i) => ({ documentId: id(kbId.slice(3, 8), i), type: 'text', content: t.text, fingerprint: sourceFingerprint({ type: 'text', content: t.text }) }));
  await store.kbs.create({ workspaceId: WS, kbId, name: kbId, sources, now: now() });
  for (const [i, s] of sources.entries()) {
    const ref = { kbId, documentId: s.documentId, run: 1 };
    await store.kbs.startSourceReport(ref, { now: now() });
    await store.kbs.finishSourceReport(ref, { status: 'ready', text: texts[i]!.text, markdown: texts[i]!.text, chunks: texts[i]!.chunks, truncated: false }, { now: now() });
  }
  return sources.map((s) => s.documentId);
}

const memoryUsage = async (redis: Redis, key: string) => Number((await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0);
const counted = async (redis: Redis, store: Store, kbId: string) => Number((await redis.hget(store.keys.changesInfo(kbId), 'bytes')) ?? 0);
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(2)} MB`;

const RUNS = 7;

/** The slowest script call SLOWLOG saw in each of `runs` runs of `work` (µs), with the log at threshold 0. */
async function timed(redis: Redis, work: () => Promise<unknown>, runs = RUNS): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    await redis.slowlog('RESET');
    await work();
    const log = (await redis.slowlog('GET', 1000)) as [number, number, number, string[]][];
    out.push(Math.max(0, ...log.filter((e) => /^(EVALSHA|EVAL)$/i.test(String(e[3][0]))).map((e) => e[2])));
  }
  return out;
}

async function main(): Promise<void> {
  const server = await startRedisServer();
  const redis = new Redis(server.url);
  try {
    const store = createStore(redis, { prefix: 'bfeed', blobTtlSeconds: 3600 });
    const retention = store.keys.changeRetention;

    // 1. One 200 KB text (512-token chunks are about 2,000 characters).
    const one = textOf(200_000, 2000);
    await kbWith(store, 'kb_amp', [one]);
    const chunkBytes = feedEntries('kb_amp', 'doc', one.text, one.chunks).reduce((s, e) => s + Buffer.byteLength(e.j), 0);
    const ampStream = await memoryUsage(redis, store.keys.changes('kb_amp'));
    console.log(`feed-amp: 200 KB text, ${one.chunks.length} chunks of ${chunkBytes} bytes (JSON)`);
    console.log(`  stream ${ampStream} bytes (MEMORY USAGE): ${(ampStream / chunkBytes).toFixed(2)}x the chunks; counted ${await counted(redis, store, 'kb_amp')} bytes: ${((await counted(redis, store, 'kb_amp')) / chunkBytes).toFixed(2)}x`);

    // 2. Nine 750 KB texts, then metadata PATCHes, each re-sending every chunk.
    const nine = Array.from({ length: 9 }, () => textOf(750_000, 2000));
    const docs = await kbWith(store, 'kb_patch', nine);
    const patches = 12;
    for (let p = 0; p < patches; p++) {
      for (const documentId of docs) await store.kbs.setMetadata({ workspaceId: WS, kbId: 'kb_patch', documentId }, { round: p }, now());
    }
    const patchStream = await memoryUsage(redis, store.keys.changes('kb_patch'));
    console.log(`patches: 9 x 750 KB texts, ${patches} rounds of metadata PATCHes (${9 * (patches + 1)} writes of a source's chunks)`);
    console.log(`  feed counted ${mb(await counted(redis, store, 'kb_patch'))}, stream ${mb(patchStream)} (MEMORY USAGE) against CHANGES_MAX_BYTES ${mb(retention.maxBytes)}`);
    const patchFloor = await redis.hget(store.keys.changesInfo('kb_patch'), 'floor');
    const bigPage = await store.changes.read(WS, 'kb_patch', patchFloor ? encodeCursor(patchFloor, 'kb_patch') : undefined, 1000);
    console.log(`  a page of size 1000 from its oldest event: ${bigPage.data.length} events in ${Buffer.byteLength(JSON.stringify(bigPage))} bytes, hasMore ${bigPage.hasMore}`);
    const usage = await store.quotas.derivedBytes(WS);
    console.log(`  workspace usage changeFeeds ${mb(usage.changeFeeds)} against CHANGES_WORKSPACE_MAX_BYTES ${mb(retention.workspaceMaxBytes)}`);

    // 3. A feed of EVENTS events: 100 sources of EVENTS/100 short chunks, and one source of one chunk.
    const perSource = EVENTS / 100;
    const small = [...Array.from({ length: 100 }, () => textOf(perSource * 120, 100)), textOf(50, 100)];
    const bigDocs = await kbWith(store, 'kb_big', small);
    const oneChunk = bigDocs.at(-1)!;
    const len = await redis.xlen(store.keys.changes('kb_big'));
    console.log(`scripts at ${len} events (SLOWLOG at threshold 0: median and slowest of ${RUNS} calls):`);
    await redis.config('SET', 'slowlog-log-slower-than', '0');
    await redis.config('SET', 'slowlog-max-len', '10000');
    const ws = { workspaceId: WS, kbId: 'kb_big' };
    // At its count cap, each write trims as many events as it wrote.
    const capped = createStore(redis, { prefix: 'bfeed', blobTtlSeconds: 3600, changes: { maxEvents: len } });
    const rows: [string, number[]][] = [];
    let round = 0;
    rows.push(['setSourceMetadata, 1 chunk, feed at its event cap', await timed(redis, () => capped.kbs.setMetadata({ ...ws, documentId: oneChunk }, { a: round++ }, now()))]);
    rows.push(['setSourceMetadata, 1 chunk, feed under its caps', await timed(redis, () => store.kbs.setMetadata({ ...ws, documentId: oneChunk }, { a: round++ }, now()))]);
    rows.push([`setSourceMetadata + emitMetadata batches, ${perSource} chunks re-sent`, await timed(redis, () => store.kbs.setMetadata({ ...ws, documentId: bigDocs[round % 100]! }, { a: round++ }, now()))]);
    const tight = createStore(redis, { prefix: 'bfeed', blobTtlSeconds: 3600, changes: { maxBytes: 2 * 1024 * 1024 } });
    rows.push(['setSourceMetadata, 1 chunk, byte cap lowered to 2 MiB', await timed(redis, () => tight.kbs.setMetadata({ ...ws, documentId: oneChunk }, { a: round++ }, now()))]);
    let pageBytes = 0;
    let pageEvents = 0;
    // From the feed's floor (its oldest event kept): a consumer reading as far back as it can.
    const floor = await redis.hget(store.keys.changesInfo('kb_big'), 'floor');
    rows.push([
      'readChanges, a page of size 1000 (each script call)',
      await timed(redis, async () => {
        const page = await store.changes.read(WS, 'kb_big', floor ? encodeCursor(floor, 'kb_big') : undefined, 1000);
        pageBytes = Buffer.byteLength(JSON.stringify(page));
        pageEvents = page.data.length;
      }),
    ]);
    rows.push(['deleteKb of those events', await timed(redis, () => store.kbs.delete(WS, 'kb_big'), 1)]);
    for (const [name, us] of rows) console.log(`  ${name.padEnd(56)} median ${(median(us) / 1000).toFixed(2)} ms, slowest ${(Math.max(...us) / 1000).toFixed(2)} ms`);
    console.log(`page: 1,000 events asked, ${pageEvents} events in ${pageBytes} bytes answered (bound ${retention.pageMaxBytes} bytes of events)`);
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

await main();
