import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import type { StoredChunk } from '../../shared/schemas/chunk.js';
import { corpusDir, corpusPresent } from '../../test/corpus/corpus-files.js';
import { startRedisServer } from '../../test/helpers/redis-server.js';
import { median } from './bench-util.js';
import { SeededRandom } from './seeded-random.js';

/** What one run of the search load measured. */
export interface SearchLoad {
  implementation: string;
  chunks: number;
  /** Bytes of the chunks' texts. */
  textBytes: number;
  /** Seconds of the first search (the index built). */
  firstSearchSeconds: number;
  clients: number;
  queries: number;
  p50Ms: number;
  p95Ms: number;
  queriesPerSecond: number;
  /** The slowest Redis command or script each phase sent (SLOWLOG at 0 µs): the first search, the searches, a catch-up. */
  slowest: { build: SlowEntry; searches: SlowEntry; catchUp: SlowEntry };
  /** Redis used_memory the index added, and that over the chunks' text. */
  indexBytes: number;
  indexOverText: number;
  /** Bytes the API process's index takes, as it counts them (0 for an index in Redis). */
  processIndexBytes: number;
}

export interface SlowEntry {
  micros: number;
  command: string;
  /** Calls logged, the 99.9th percentile of their durations, and how many took over 5 ms. */
  calls: number;
  p999Micros: number;
  over5ms: number;
}

/** What the store and search modules of an implementation give the benchmark (this tree's or another checkout's). */
interface Impl {
  createStore: (redis: Redis, opts: { prefix: string; blobTtlSeconds: number }) => {
    keys: { changes(kbId: string): string };
    kbs: {
      create(i: unknown): Promise<unknown>;
      startSourceReport(ref: unknown, o: unknown): Promise<unknown>;
      finishSourceReport(ref: unknown, r: unknown, o: unknown): Promise<unknown>;
      setMetadata(t: unknown, m: unknown, now: string): Promise<unknown>;
    };
    search: { heldBytes?: number };
  } & Record<string, unknown>;
  searchKb: (deps: unknown, ws: string, kbId: string, req: { query: string; topK: number }) => Promise<unknown[]>;
  withCommands: (redis: Redis) => unknown;
  sourceFingerprint: (s: { type: 'text'; content: string }) => string;
}

async function loadImpl(root: string): Promise<Impl> {
  const at = (p: string) => pathToFileURL(join(root, p)).href;
  const [store, search, commands, records] = await Promise.all([
    import(at('shared/store/index.ts')),
    import(at('shared/search/kb-search.ts')),
    import(at('shared/store/commands.ts')),
    import(at('shared/store/kb-records.ts')),
  ]);
  return { createStore: store.createStore, searchKb: search.searchKb, withCommands: commands.withCommands, sourceFingerprint: records.sourceFingerprint };
}

/** Text to build chunks from: the corpus's Markdown and plain-text lines and its Markdown headings, else made-up prose. */
export function textPool(random: SeededRandom): { lines: string[]; headings: string[] } {
  const root = corpusDir();
  const lines: string[] = [];
  const headings: string[] = [];
  if (corpusPresent(root)) {
    for (const dir of ['md', 'txt']) {
      let files: string[] = [];
      try {
        files = readdirSync(join(root, dir)).sort();
      } catch {
        continue;
      }
      for (const f of files) {
        for (const raw of readFileSync(join(root, dir, f), 'utf8').split(/\r?\n/)) {
          const line = raw.trim();
          if (/^#{1,6} /.test(line)) headings.push(line.replace(/^#+\s*/, '').slice(0, 80));
          else if (line.length >= 20) lines.push(line.slice(0, 400));
        }
      }
    }
  }
  if (lines.length < 1000) {
    const syllables = ['ka', 'lo', 'mi', 'ren', 'tos', 'va', 'quel', 'dor', 'sin', 'fa', 'pu', 'ber', 'nix', 'ta', 'gol'];
    const vocab = Array.from({ length: 20_000 }, () => Array.from({ length: random.int(2, 4) }, () => syllables[random.int(0, syllables.length - 1)]).join(''));
    const word = () => vocab[Math.min(vocab.length - 1, Math.floor(vocab.length ** random.next()) - 1)]!;
    for (let i = 0; i < 20_000; i++) lines.push(Array.from({ length: random.int(8, 30) }, word).join(' '));
    for (let i = 0; i < 2_000; i++) headings.push(`${word()} ${word()}`);
  }
  return { lines, headings };
}

const CHUNK_CHARS = 600;
const PER_SOURCE = 100;

/** One source's Markdown and chunks: runs of consecutive corpus lines under two headings each. */
export function sourceText(random: SeededRandom, pool: { lines: string[]; headings: string[] }): { markdown: string; stored: StoredChunk[]; texts: string[] } {
  let markdown = '';
  let bytes = 0;
  const stored: StoredChunk[] = [];
  const texts: string[] = [];
  for (let index = 0; index < PER_SOURCE; index++) {
    let at = random.int(0, pool.lines.length - 1);
    let body = '';
    while (body.length < CHUNK_CHARS) body += `${pool.lines[at++ % pool.lines.length]} `;
    body = body.trim();
    const headings = [pool.headings[random.int(0, pool.headings.length - 1)]!, pool.headings[random.int(0, pool.headings.length - 1)]!];
    const charStart = markdown.length;
    const byteStart = bytes;
    const size = Buffer.byteLength(body);
    markdown += `${body}\n\n`;
    bytes += size + 2;
    stored.push({ index, charStart, charEnd: charStart + body.length, byteStart, byteEnd: byteStart + size, tokens: 150, headings });
    texts.push(body);
  }
  return { markdown, stored, texts };
}

/** Queries as people type them: two to four words of a chunk's text or heading, some after "how do I". */
export function queries(random: SeededRandom, pool: { lines: string[]; headings: string[] }, count: number): string[] {
  const out: string[] = [];
  while (out.length < count) {
    const from = random.chance(0.3) ? pool.headings[random.int(0, pool.headings.length - 1)]! : pool.lines[random.int(0, pool.lines.length - 1)]!;
    const words = from.split(/\s+/).filter((w) => /^\p{L}{3,}$/u.test(w));
    if (words.length < 2) continue;
    const start = random.int(0, Math.max(0, words.length - 4));
    const picked = words.slice(start, start + random.int(2, 4)).join(' ');
    out.push(random.chance(0.25) ? `how do I ${picked}` : picked);
  }
  return out;
}

export async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
}

/** The slowest entry of the slow log since its last reset (and the spread of the others), then resets it. */
export async function slowest(redis: Redis): Promise<SlowEntry> {
  const entries = (await redis.call('SLOWLOG', 'GET', '-1')) as [number, number, number, (string | Buffer)[]][];
  await redis.call('SLOWLOG', 'RESET');
  let top = { micros: 0, command: '' };
  const durations: number[] = [];
  for (const [, , micros, args] of entries) {
    const name = String(args[0]).toUpperCase();
    // The benchmark's own SLOWLOG and INFO calls are not the search's.
    if (name === 'SLOWLOG' || name === 'INFO') continue;
    durations.push(micros);
    if (micros <= top.micros) continue;
    // A script is named by its first key; other commands by their key.
    const key = name.startsWith('EVAL') ? String(args[3] ?? '') : String(args[1] ?? '');
    top = { micros, command: `${name} ${key.replace(/^[^}]*}/, '…')}`.slice(0, 60) };
  }
  durations.sort((a, b) => a - b);
  return {
    ...top,
    calls: durations.length,
    p999Micros: durations[Math.min(durations.length - 1, Math.floor(durations.length * 0.999))] ?? 0,
    over5ms: durations.filter((d) => d > 5000).length,
  };
}

/**
 * The search load on a throwaway redis-server: `chunkCount` chunks of about
 * 600 characters of the corpus's text written as ready sources of one
 * knowledge base, the first search timed (it builds the index), then
 * `queryCount` searches by `clients` concurrent clients of one API process
 * (in process, through searchKb), then one source's metadata changed and a
 * search that catches up. Each phase's slowest Redis command comes from
 * SLOWLOG at 0 µs; the index's Redis memory is used_memory after the first
 * search against before it, with the slow log empty both times. `root` is
 * the checkout whose store and search are measured.
 */
export async function searchLoad(opts: { chunks: number; queries: number; clients: number; root?: string; seed?: number }): Promise<SearchLoad> {
  const root = resolve(opts.root ?? '.');
  const impl = await loadImpl(root);
  const server = await startRedisServer({ args: ['--slowlog-log-slower-than', '0', '--slowlog-max-len', '1000000'] });
  const redis = new Redis(server.url);
  try {
    const random = new SeededRandom(opts.seed ?? 11);
    const pool = textPool(random);
    const store = impl.createStore(redis, { prefix: 'bload', blobTtlSeconds: 3600 });
    const ws = 'ws_search_load';
    const kbId = 'kb_search_load';
    const sources = Array.from({ length: Math.ceil(opts.chunks / PER_SOURCE) }, (_, i) => {
      const content = `source ${i}`;
      return { documentId: `doc_${String(i).padStart(21, '0')}`, type: 'text' as const, content, fingerprint: impl.sourceFingerprint({ type: 'text', content }) };
    });
    const now = () => new Date().toISOString();
    await store.kbs.create({ workspaceId: ws, kbId, name: 'Search load', sources, now: now() });
    let textBytes = 0;
    for (const s of sources) {
      const { markdown, stored, texts } = sourceText(random, pool);
      for (const t of texts) textBytes += Buffer.byteLength(t);
      const ref = { kbId, documentId: s.documentId, run: 1 };
      await store.kbs.startSourceReport(ref, { now: now() });
      await store.kbs.finishSourceReport(ref, { status: 'ready', text: markdown, markdown, chunks: stored, truncated: false }, { now: now() });
    }
    await redis.call('SLOWLOG', 'RESET');
    const before = await usedMemory(redis);

    const deps = { redis: impl.withCommands(redis), keys: store.keys, kbs: store.kbs, index: store.search };
    const qs = queries(random, pool, opts.queries + 20);
    let t = performance.now();
    await impl.searchKb(deps, ws, kbId, { query: qs[0]!, topK: 10 });
    const firstSearchSeconds = (performance.now() - t) / 1000;
    const build = await slowest(redis);
    const indexBytes = Math.max(0, (await usedMemory(redis)) - before);

    for (const q of qs.slice(0, 20)) await impl.searchKb(deps, ws, kbId, { query: q, topK: 10 });
    await redis.call('SLOWLOG', 'RESET');
    const times: number[] = [];
    let next = 20;
    t = performance.now();
    await Promise.all(
      Array.from({ length: opts.clients }, async () => {
        while (next < qs.length) {
          const q = qs[next++]!;
          const start = performance.now();
          await impl.searchKb(deps, ws, kbId, { query: q, topK: 10 });
          times.push(performance.now() - start);
        }
      }),
    );
    const wall = (performance.now() - t) / 1000;
    const searches = await slowest(redis);

    await store.kbs.setMetadata({ workspaceId: ws, kbId, documentId: sources[0]!.documentId }, { edited: true }, now());
    await redis.call('SLOWLOG', 'RESET');
    await impl.searchKb(deps, ws, kbId, { query: qs[1]!, topK: 10 });
    const catchUp = await slowest(redis);

    times.sort((a, b) => a - b);
    return {
      implementation: root,
      chunks: sources.length * PER_SOURCE,
      textBytes,
      firstSearchSeconds,
      clients: opts.clients,
      queries: times.length,
      p50Ms: median(times),
      p95Ms: times[Math.floor(times.length * 0.95)]!,
      queriesPerSecond: times.length / wall,
      slowest: { build, searches, catchUp },
      indexBytes,
      indexOverText: indexBytes / textBytes,
      processIndexBytes: store.search.heldBytes ?? 0,
    };
  } finally {
    redis.disconnect();
    await server.stop();
  }
}
