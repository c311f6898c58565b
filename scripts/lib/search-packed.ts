import { Redis } from 'ioredis';
import { SCORING } from '../../shared/search/rank.js';
import { loadStopWords } from '../../shared/search/stopwords.js';
import { loadStemmer, termCounts, words } from '../../shared/search/tokenize.js';
import { startRedisServer } from '../../test/helpers/redis-server.js';
import { median } from './bench-util.js';
import { queries, slowest, sourceText, textPool, usedMemory, type SlowEntry } from './search-load.js';
import { SeededRandom } from './seeded-random.js';

/** What the packed-postings candidate measured. */
export interface PackedLoad {
  chunks: number;
  postings: number;
  /** Redis used_memory of the packed postings over the chunks' text. */
  redisOverText: number;
  p50Ms: number;
  p95Ms: number;
  queriesPerSecond: number;
  slowestGet: SlowEntry;
  /** Mean bytes a search reads from Redis. */
  bytesPerQuery: number;
}

/**
 * The candidate not taken, measured on its read path only: each term's
 * postings in Redis as one packed string (per chunk a 4-byte chunk number and
 * a 2-byte weighted count, plus a table of chunk lengths), a search reading
 * its terms' strings in one pipeline and scoring them in the API process
 * (BM25F as rank.ts). Writing such strings as chunks change (a rewrite of
 * every string a changed chunk's terms name) is not measured.
 */
export async function packedLoad(opts: { chunks: number; queries: number; clients: number; seed?: number }): Promise<PackedLoad> {
  const server = await startRedisServer({ args: ['--slowlog-log-slower-than', '0', '--slowlog-max-len', '100000'] });
  const redis = new Redis(server.url);
  try {
    const random = new SeededRandom(opts.seed ?? 11);
    const pool = textPool(random);
    const stem = await loadStemmer('english');
    const stop = await loadStopWords('english');
    const lists = new Map<string, number[]>();
    const lengths: number[] = [];
    let textBytes = 0;
    const w = SCORING.weight;
    while (lengths.length < opts.chunks) {
      const { stored, texts } = sourceText(random, pool);
      stored.forEach((c, i) => {
        textBytes += Buffer.byteLength(texts[i]!);
        const body = termCounts(texts[i]!, stem);
        const heading = termCounts(c.headings.join('\n'), stem);
        const n = lengths.length;
        let len = 0;
        for (const v of body.values()) len += v;
        for (const v of heading.values()) len += w * v;
        lengths.push(len);
        for (const term of new Set([...body.keys(), ...heading.keys()])) {
          let l = lists.get(term);
          if (!l) lists.set(term, (l = []));
          l.push(n, (body.get(term) ?? 0) + w * (heading.get(term) ?? 0));
        }
      });
    }
    const before = await usedMemory(redis);
    let postings = 0;
    let pipe = redis.pipeline();
    for (const [term, l] of lists) {
      const buf = Buffer.alloc((l.length / 2) * 6);
      for (let i = 0; i < l.length; i += 2) {
        buf.writeUInt32LE(l[i]!, i * 3);
        buf.writeUInt16LE(Math.min(l[i + 1]!, 65535), i * 3 + 4);
      }
      postings += l.length / 2;
      pipe.set(`p:${term}`, buf);
      if (pipe.length >= 1000) {
        await pipe.exec();
        pipe = redis.pipeline();
      }
    }
    pipe.set('lengths', Buffer.from(new Float32Array(lengths).buffer));
    await pipe.exec();
    const redisBytes = (await usedMemory(redis)) - before;
    await redis.call('SLOWLOG', 'RESET');

    const n = lengths.length;
    const avg = lengths.reduce((a, b) => a + b, 0) / n;
    const qs = queries(random, pool, opts.queries);
    const times: number[] = [];
    let read = 0;
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: opts.clients }, async () => {
        while (next < qs.length) {
          const q = qs[next++]!;
          const start = performance.now();
          const all = words(q).map((x) => x.word);
          const kept = all.filter((x) => !stop.has(x));
          const terms = [...new Set((kept.length > 0 ? kept : all).map(stem))];
          const p = redis.pipeline();
          for (const t of terms) p.getBuffer(`p:${t}`);
          const rows = (await p.exec()) ?? [];
          // Scored as the in-process index scores: a typed array of scores and the chunks touched.
          const scores = new Float64Array(n);
          const touched: number[] = [];
          for (const [, v] of rows) {
            const buf = v as Buffer | null;
            if (!buf) continue;
            read += buf.length;
            const df = buf.length / 6;
            const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
            for (let o = 0; o < buf.length; o += 6) {
              const id = buf.readUInt32LE(o);
              const tf = buf.readUInt16LE(o + 4);
              if (scores[id] === 0) touched.push(id);
              scores[id] = scores[id]! + (idf * tf * (SCORING.k1 + 1)) / (tf + SCORING.k1 * (1 - SCORING.b + (SCORING.b * lengths[id]!) / avg));
            }
          }
          const best: number[] = [];
          for (const id of touched) {
            if (best.length === 10 && scores[id]! <= scores[best[9]!]!) continue;
            best.push(id);
            best.sort((a, b) => scores[b]! - scores[a]!);
            if (best.length > 10) best.pop();
          }
          times.push(performance.now() - start);
        }
      }),
    );
    const wall = (performance.now() - t0) / 1000;
    times.sort((a, b) => a - b);
    return {
      chunks: n,
      postings,
      redisOverText: redisBytes / textBytes,
      p50Ms: median(times),
      p95Ms: times[Math.floor(times.length * 0.95)]!,
      queriesPerSecond: times.length / wall,
      slowestGet: await slowest(redis),
      bytesPerQuery: read / times.length,
    };
  } finally {
    redis.disconnect();
    await server.stop();
  }
}
