import { Redis } from 'ioredis';
import type { StoredChunk } from '../../shared/schemas/chunk.js';
import { searchKb } from '../../shared/search/kb-search.js';
import { sourceFingerprint, type NewSource } from '../../shared/store/kb-records.js';
import { createStore } from '../../shared/store/index.js';
import { withCommands } from '../../shared/store/commands.js';
import { startRedisServer } from '../../test/helpers/redis-server.js';
import { median } from './bench-util.js';
import { SeededRandom } from './seeded-random.js';

/** What the search section measured. */
export interface SearchBench {
  chunks: number;
  /** Events per second read through the change feed's page reads (1,000 a page). */
  feedEventsPerSecond: number;
  /** Seconds the first search took to build the index from the chunks. */
  indexSeconds: number;
  searchP50Ms: number;
  searchP95Ms: number;
  /** Redis used_memory per chunk: the feed's events and chunk ids, and the search index (none since it is held by the API process). */
  feedBytesPerChunk: number;
  indexBytesPerChunk: number;
  /** The workspace usage's figures (derivedBytes) over what Redis holds: the feed stream, and the index by used_memory. */
  feedUsageRatio: number;
  indexUsageRatio: number;
}

const WS = 'ws_bench_search';
const CHARS_PER_CHUNK = 600;

/** A vocabulary of made-up words, drawn with a Zipf-like skew as words of real text are. */
function vocabulary(random: SeededRandom, size: number): string[] {
  const syllables = ['ka', 'lo', 'mi', 'ren', 'tos', 'va', 'quel', 'dor', 'sin', 'fa', 'pu', 'ber', 'nix', 'ta', 'gol'];
  return Array.from({ length: size }, () => Array.from({ length: random.int(2, 4) }, () => syllables[random.int(0, syllables.length - 1)]).join(''));
}

const zipf = (random: SeededRandom, words: string[]) => words[Math.min(words.length - 1, Math.floor(words.length ** random.next()) - 1)]!;

function sourceText(random: SeededRandom, words: string[], chunks: number): { markdown: string; stored: StoredChunk[] } {
  let markdown = '';
  const stored: StoredChunk[] = [];
  for (let index = 0; index < chunks; index++) {
    const heading = [zipf(random, words), zipf(random, words)];
    const start = markdown.length;
    let body = '';
    while (body.length < CHARS_PER_CHUNK) body += `${zipf(random, words)} `;
    markdown += `${body.trim()}\n\n`;
    stored.push({ index, charStart: start, charEnd: markdown.length - 2, byteStart: start, byteEnd: markdown.length - 2, tokens: 150, headings: heading });
  }
  return { markdown, stored };
}

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
}

/**
 * The change feed and search on a throwaway redis-server: `chunkCount`
 * chunks written as ready sources (which writes their feed events), the feed
 * read from the start, the first search (which builds the index), then
 * `queries` searches of two or three words, timed one by one.
 */
export async function searchBench(chunkCount = 10_000, queries = 300, seed = 7): Promise<SearchBench> {
  const server = await startRedisServer();
  const redis = new Redis(server.url);
  try {
    const store = createStore(redis, { prefix: 'bsearch', blobTtlSeconds: 3600 });
    const random = new SeededRandom(seed);
    const words = vocabulary(random, 20_000);
    const kbId = 'kb_search_bench';
    const perSource = 100;
    const sources: NewSource[] = Array.from({ length: chunkCount / perSource }, (_, i) => {
      const content = `source ${i}`;
      return { documentId: `doc_${String(i).padStart(21, '0')}`, type: 'text', content, fingerprint: sourceFingerprint({ type: 'text', content }) };
    });
    await store.kbs.create({ workspaceId: WS, kbId, name: 'Search bench', sources, now: new Date().toISOString() });
    for (const s of sources) {
      const { markdown, stored } = sourceText(random, words, perSource);
      const ref = { kbId, documentId: s.documentId, run: 1 };
      await store.kbs.startSourceReport(ref, { now: new Date().toISOString() });
      await store.kbs.finishSourceReport(ref, { status: 'ready', text: markdown, markdown, chunks: stored, truncated: false }, { now: new Date().toISOString() });
    }
    const afterWrite = await usedMemory(redis);
    let feedBytes = Number(await redis.call('MEMORY', 'USAGE', store.keys.changes(kbId), 'SAMPLES', '0'));
    for (const s of sources) feedBytes += Number(await redis.call('MEMORY', 'USAGE', store.keys.sourceKeys(kbId, s.documentId).chunkIds, 'SAMPLES', '0'));

    let events = 0;
    let cursor: string | undefined;
    const readStart = performance.now();
    for (;;) {
      const page = await store.changes.read(WS, kbId, cursor, 1000);
      events += page.data.length;
      cursor = page.nextCursor;
      if (!page.hasMore) break;
    }
    const readSeconds = (performance.now() - readStart) / 1000;

    const deps = { redis: withCommands(redis), keys: store.keys, kbs: store.kbs, index: store.search };
    const indexStart = performance.now();
    await searchKb(deps, WS, kbId, { query: words[0]!, topK: 10 });
    const indexSeconds = (performance.now() - indexStart) / 1000;
    const afterIndex = await usedMemory(redis);
    const usage = await store.quotas.derivedBytes(WS);
    const streamBytes = Number(await redis.call('MEMORY', 'USAGE', store.keys.changes(kbId), 'SAMPLES', '0'));

    const times: number[] = [];
    for (let q = 0; q < queries; q++) {
      const query = Array.from({ length: random.int(2, 3) }, () => words[random.int(0, 2000)]).join(' ');
      const t = performance.now();
      await searchKb(deps, WS, kbId, { query, topK: 10 });
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    return {
      chunks: chunkCount,
      feedEventsPerSecond: events / readSeconds,
      indexSeconds,
      searchP50Ms: median(times),
      searchP95Ms: times[Math.floor(times.length * 0.95)]!,
      feedBytesPerChunk: feedBytes / chunkCount,
      indexBytesPerChunk: (afterIndex - afterWrite) / chunkCount,
      feedUsageRatio: usage.changeFeeds / streamBytes,
      indexUsageRatio: usage.searchIndexes / (afterIndex - afterWrite),
    };
  } finally {
    redis.disconnect();
    await server.stop();
  }
}
