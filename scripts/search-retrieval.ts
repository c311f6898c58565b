/**
 * Retrieval quality of the service's search on user-style questions over
 * Debian documentation (scripts/lib/retrieval-set.json), beside PostgreSQL
 * `ts_rank` and an npm BM25 library over the very same chunks.
 *
 * The service runs in this process as it is built (the API and a worker on a
 * throwaway redis-server) and is used only through its HTTP API: one
 * knowledge base with the documents as file sources, its chunks read with
 * `GET …/chunks`, each question asked with `POST …/search`. A chunk is
 * relevant to a question when it holds one of the question's answer phrases
 * (see retrieval-metrics.ts). Prints recall@5, MRR@10 and the time per
 * query of each system. Needs redis-server on PATH, PostgreSQL on
 * 127.0.0.1:5432 (trust, user postgres, database test) and the packages the
 * set names installed; exits 2 naming a missing package. About 20 seconds.
 * See docs/retrieval.md.
 *
 *   npm run bench:retrieval [-- --set FILE] [--chunk-max-tokens N] [--verbose] [--dump-chunks FILE] [--log-level warn]
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { Agent, fetch, FormData } from 'undici';
import { startApi } from '../api/server.js';
import { loadConfig } from '../shared/runtime/config.js';
import { createLogger } from '../shared/runtime/logger.js';
import { createStore } from '../shared/store/index.js';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { startWorker } from '../worker/main.js';
import { median } from './lib/bench-util.js';
import { bm25LibraryRanker, postgresRankers, type BaselineChunk, type Ranker } from './lib/retrieval-baselines.js';
import { phraseJudge, recallAt, reciprocalRankAt, retrievalScores } from './lib/retrieval-metrics.js';
import { loadRetrievalSet, MissingPackagesError, readSetDocuments, type SetDocument } from './lib/retrieval-set.js';

const { values: opts } = parseArgs({
  options: {
    set: { type: 'string', default: fileURLToPath(new URL('./lib/retrieval-set.json', import.meta.url)) },
    verbose: { type: 'boolean', default: false },
    'dump-chunks': { type: 'string' },
    'log-level': { type: 'string', default: 'silent' },
    'chunk-max-tokens': { type: 'string' },
  },
});
const PREFIX = 'retrieval';
const WORKSPACE = 'ws_retrieval';
/** Chunks asked for per question: MRR@10 needs ten. */
const DEPTH = 10;

interface ApiChunk extends BaselineChunk {
  documentId: string;
  filename?: string;
}

/** The service over HTTP with one key. */
function client(base: string, key: string) {
  // Idle sockets are dropped well before the server's 5 s keep-alive ends them, so no request meets a closed one.
  const dispatcher = new Agent({ keepAliveTimeout: 1000, keepAliveMaxTimeout: 1000 });
  return async <T>(method: string, path: string, body?: FormData | object): Promise<T> => {
    const headers: Record<string, string> = { 'X-API-Key': key };
    let payload: FormData | string | undefined;
    if (body instanceof FormData) payload = body;
    else if (body) {
      payload = JSON.stringify(body);
      headers['Content-Type'] = 'application/json';
    }
    const res = await fetch(`${base}${path}`, { method, headers, dispatcher, ...(payload !== undefined && { body: payload }) });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
}
type Call = ReturnType<typeof client>;

async function buildKnowledgeBase(call: Call, docs: SetDocument[]): Promise<string> {
  const form = new FormData();
  form.set('knowledge_base_name', 'Retrieval set');
  if (opts['chunk-max-tokens']) form.set('chunk_max_tokens', opts['chunk-max-tokens']);
  for (const d of docs) form.append('knowledge_base_files', new Blob([d.bytes]), d.name);
  const { kbId } = await call<{ kbId: string }>('POST', '/v1/knowledge-bases', form);
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    const kb = await call<{ sourceCounts: Record<string, number> }>('GET', `/v1/knowledge-bases/${kbId}`);
    const { ready = 0, failed = 0 } = kb.sourceCounts;
    if (ready + failed >= docs.length) {
      if (failed > 0) console.warn(`warning: ${failed} of ${docs.length} documents failed to extract`);
      return kbId;
    }
    if (Date.now() > deadline) throw new Error(`sources not settled after 15 minutes: ${JSON.stringify(kb.sourceCounts)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function allChunks(call: Call, kbId: string): Promise<ApiChunk[]> {
  const out: ApiChunk[] = [];
  let after: string | null = null;
  do {
    const query: string = after ? `&after=${encodeURIComponent(after)}` : '';
    const page: { data: ApiChunk[]; nextCursor: string | null } = await call('GET', `/v1/knowledge-bases/${kbId}/chunks?size=100${query}`);
    out.push(...page.data);
    after = page.nextCursor;
  } while (after);
  return out;
}

/** Every question through one ranker, one at a time: the rankings and each query's milliseconds. */
async function runAll(rank: Ranker, queries: string[]): Promise<{ ranked: string[][]; ms: number[] }> {
  const ranked: string[][] = [];
  const ms: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    ranked.push(await rank(q, DEPTH));
    ms.push(performance.now() - t);
  }
  return { ranked, ms };
}

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)]!;

async function main(): Promise<void> {
  const set = loadRetrievalSet(opts.set!);
  let docs: SetDocument[];
  try {
    docs = readSetDocuments(set);
  } catch (err) {
    if (!(err instanceof MissingPackagesError)) throw err;
    console.error(err.message);
    process.exit(2);
  }

  const server = await startRedisServer();
  const config = loadConfig({
    REDIS_URL: server.url,
    REDIS_KEY_PREFIX: PREFIX,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    MAX_SOURCES_PER_REQUEST: String(Math.max(100, docs.length)),
    WORKER_CONCURRENCY: '2',
  });
  const logger = createLogger(opts['log-level']!);
  const api = await startApi(config, logger);
  const redis = new Redis(server.url);
  let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
  try {
    await api.ready;
    worker = await startWorker(config, logger, { reconcileIntervalMs: 3_600_000 });
    const { key } = await createStore(redis, { prefix: PREFIX, blobTtlSeconds: 3600 }).apiKeys.create(WORKSPACE, 'retrieval', false);
    const call = client(`http://127.0.0.1:${api.port}`, key);

    let t = performance.now();
    const kbId = await buildKnowledgeBase(call, docs);
    const ingestSeconds = (performance.now() - t) / 1000;
    const chunks = await allChunks(call, kbId);
    if (opts['dump-chunks']) writeFileSync(opts['dump-chunks'], JSON.stringify(chunks, null, 1));

    // Judge each question on the chunks; a question none of whose phrases any chunk holds is left out.
    const judge = phraseJudge(chunks);
    const questions = set.questions.flatMap((q) => {
      const missing = judge.unmatched(q.answers);
      if (missing.length > 0) console.warn(`warning: no chunk holds ${missing.map((m) => JSON.stringify(m)).join(', ')} (question "${q.query}")`);
      const relevant = judge.relevant(q.answers);
      return relevant.size > 0 ? [{ ...q, relevant }] : [];
    });
    const relevant = questions.map((q) => q.relevant);
    const queries = questions.map((q) => q.query);

    t = performance.now();
    // The first search may build the index; it is timed apart.
    await call('POST', `/v1/knowledge-bases/${kbId}/search`, { query: queries[0] ?? 'x', topK: DEPTH });
    const firstSearchMs = performance.now() - t;
    const service: Ranker = async (query, k) =>
      (await call<{ data: { chunk: { id: string } }[] }>('POST', `/v1/knowledge-bases/${kbId}/search`, { query, topK: k })).data.map((r) => r.chunk.id);

    const pgRankers = await postgresRankers(chunks);
    const systems: { name: string; rank: Ranker }[] = [
      { name: 'service search (POST …/search)', rank: service },
      { name: 'PostgreSQL ts_rank, lexemes OR-ed', rank: pgRankers.or },
      { name: 'PostgreSQL ts_rank, websearch_to_tsquery (AND)', rank: pgRankers.and },
      { name: 'wink-bm25-text-search (BM25F, headings x2)', rank: bm25LibraryRanker(chunks) },
    ];
    const results: { name: string; ranked: string[][]; ms: number[] }[] = [];
    try {
      for (const s of systems) results.push({ ...s, ...(await runAll(s.rank, queries)) });
    } finally {
      await pgRankers.close();
    }

    const packages = set.sources.map((s) => `${s.package} ${s.version} (${s.format})`).join(', ');
    console.log(`${docs.length} documents of ${packages}`);
    console.log(`${chunks.length} chunks of at most ${opts['chunk-max-tokens'] ?? 'the default'} tokens (ingested through the API in ${ingestSeconds.toFixed(1)} s), ${questions.length} of ${set.questions.length} questions judged, first search ${firstSearchMs.toFixed(0)} ms`);
    const scores = results.map((r) => retrievalScores(relevant, r.ranked));
    console.log('| system | recall@5 | MRR@10 | median ms/query | p95 ms/query |');
    console.log('|---|---|---|---|---|');
    results.forEach((r, i) => console.log(`| ${r.name} | ${scores[i]!.recall5.toFixed(3)} | ${scores[i]!.mrr10.toFixed(3)} | ${median(r.ms).toFixed(2)} | ${p95(r.ms).toFixed(2)} |`));

    // The same scores on each style of question alone: small words weigh on the ones asked in full.
    const styles = ['question', 'terse'] as const;
    const of = (style: string) => questions.flatMap((q, i) => (q.style === style ? [i] : []));
    console.log(`\n| system | ${styles.map((st) => `${st} (${of(st).length}) recall@5 / MRR@10`).join(' | ')} |`);
    console.log(`|---|${styles.map(() => '---|').join('')}`);
    for (const r of results) {
      const cells = styles.map((st) => {
        const idx = of(st);
        const s = retrievalScores(idx.map((i) => relevant[i]!), idx.map((i) => r.ranked[i]!));
        return `${s.recall5.toFixed(3)} / ${s.mrr10.toFixed(3)}`;
      });
      console.log(`| ${r.name} | ${cells.join(' | ')} |`);
    }
    const best = Math.max(...scores.slice(1).map((s) => s.recall5));
    console.log(`\nservice recall@5 ${scores[0]!.recall5.toFixed(3)} against the best baseline's ${best.toFixed(3)}: ${scores[0]!.recall5 >= best ? 'at least as good' : 'below'}`);
    if (opts.verbose) {
      console.log('\nrank of the first relevant chunk (- when not in the first 10), per system:');
      questions.forEach((q, i) => {
        const ranks = results.map((r) => {
          const rr = reciprocalRankAt(DEPTH, r.ranked[i]!, q.relevant);
          return rr === 0 ? '-' : String(Math.round(1 / rr));
        });
        const hit = recallAt(5, results[0]!.ranked[i]!, q.relevant) ? ' ' : '*';
        console.log(`${hit} ${ranks.map((x) => x.padStart(2)).join(' ')}  [${q.relevant.size}] ${q.package}: ${q.query}`);
      });
    }
  } finally {
    await worker?.close();
    await api.close();
    redis.disconnect();
    await server.stop();
  }
}

await main();
