import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { freePort } from '../../test/helpers/redis-server.js';
import type { BenchService } from './bench-service.js';
import { costPerJob, redisCounters, type RedisCost } from './bench-redis-cost.js';
import { pairedRuns } from './bench-pairs.js';
import { startNode, stopProcess } from './bench-util.js';

/** Seconds for a bare BullMQ worker to complete `count` no-op jobs on the same Redis (the queue's ceiling), and their cost to Redis. */
export async function bareBullmq(redisUrl: string, count: number, concurrency: number): Promise<{ seconds: number; redis: RedisCost; cpuMsPerJob: number }> {
  const name = `noop-${Date.now()}`;
  const prefix = 'benchnoop';
  const connections = [new Redis(redisUrl, { maxRetriesPerRequest: null }), new Redis(redisUrl, { maxRetriesPerRequest: null })] as const;
  const queue = new Queue(name, { connection: connections[0], prefix });
  const worker = new Worker(name, async () => undefined, { connection: connections[1], prefix, concurrency });
  await worker.waitUntilReady();
  let done = 0;
  const finished = new Promise<void>((resolve) => worker.on('completed', () => ++done === count && resolve()));
  const before = await redisCounters(connections[0]);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await queue.addBulk(Array.from({ length: count }, (_, i) => ({ name: 'noop', data: { i } })));
  await finished;
  const seconds = (performance.now() - started) / 1000;
  // The queue's add and the worker share this process: an upper bound of the worker's own CPU.
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMsPerJob = (cpu.user + cpu.system) / 1000 / count;
  const redis = costPerJob(before, await redisCounters(connections[0]), count);
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  for (const c of connections) c.disconnect();
  return { seconds, redis, cpuMsPerJob };
}

export interface HttpFigures {
  requestsPerS: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  /** Bytes of one response, body and headers. */
  responseBytes: number;
}

/** The `q` quantile of sorted numbers (nearest rank). */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/** `connections` clients requesting `url` for `durationS` seconds; latencies of every response. */
async function load(url: string, apiKey: string, durationS: number, connections: number): Promise<HttpFigures> {
  const latencies: number[] = [];
  let bytes = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ url, connections, duration: durationS, headers: { 'X-API-Key': apiKey } }, (err: unknown, r: autocannon.Result) =>
      err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(r),
    );
    instance.on('response', (_client, _status, resBytes, ms) => {
      latencies.push(ms);
      bytes = resBytes;
    });
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  latencies.sort((a, b) => a - b);
  return { requestsPerS: latencies.length / durationS, p50Ms: quantile(latencies, 0.5), p95Ms: quantile(latencies, 0.95), p99Ms: quantile(latencies, 0.99), responseBytes: bytes };
}

export interface GetBenchOptions {
  runs: number;
  durationS: number;
  sources: number;
  /** Concurrent clients of the throughput runs (default 10); the latency runs use one. */
  connections?: number;
}

/**
 * GET of one knowledge base with `sources` text sources, the API beside the
 * bare handler: throughput with `connections` clients in pairs (A, B, A,
 * B, ...), then latency with one client, each side for `durationS` seconds.
 */
export async function getBench(svc: BenchService, opts: GetBenchOptions) {
  const connections = opts.connections ?? 10;
  const apiKey = await svc.freshWorkspaceKey();
  const kbId = await svc.createKb(apiKey);
  for (let offset = 0; offset < opts.sources; offset += 1000) {
    const texts = Array.from({ length: Math.min(1000, opts.sources - offset) }, (_, i) => ({ title: `Note ${offset + i}`, text: `Opening hours, entry ${offset + i}: nine to five.` }));
    await svc.patch(kbId, (form) => form.set('knowledge_base_texts', JSON.stringify(texts)), apiKey);
  }
  const workers = await svc.startWorkers(1, 2);
  await svc.settled(kbId, opts.sources);
  await svc.stopWorkers(workers);

  const port = await freePort();
  const bareScript = fileURLToPath(new URL('./bare-get-server.ts', import.meta.url));
  const bare = await startNode(['--import', 'tsx', bareScript], { REDIS_URL: svc.redisUrl, PREFIX: 'bench', PORT: String(port) }, 'listening');
  const uncached = await svc.startApi({ KB_VIEW_CACHE_MB: '0' });
  const apiUrl = `${svc.base}/v1/knowledge-bases/${kbId}`;
  const bareUrl = `http://127.0.0.1:${port}/v1/knowledge-bases/${kbId}`;
  try {
    // Warm both up before measuring.
    await load(apiUrl, apiKey, 1, connections);
    await load(bareUrl, apiKey, 1, connections);
    const figures = (x: unknown): HttpFigures => x as HttpFigures;
    const throughput = await pairedRuns(
      async () => {
        const f = await load(apiUrl, apiKey, opts.durationS, connections);
        return { value: f.requestsPerS, detail: f };
      },
      async () => {
        const f = await load(bareUrl, apiKey, opts.durationS, connections);
        return { value: f.requestsPerS, detail: f };
      },
      opts.runs,
      { better: 'higher' },
    );
    const latency = { api: await load(apiUrl, apiKey, opts.durationS, 1), bare: await load(bareUrl, apiKey, opts.durationS, 1) };
    const side = (s: 'ours' | 'reference') => throughput.runs.filter((r) => r.side === s).map((r) => figures(r.detail));
    // The same GET with the view cache off: every source read and mapped on each request, as for an active knowledge base.
    const uncachedUrl = `${uncached.base}/v1/knowledge-bases/${kbId}`;
    await load(uncachedUrl, apiKey, 1, connections);
    const uncachedThroughput = await pairedRuns(
      async () => (await load(uncachedUrl, apiKey, opts.durationS, connections)).requestsPerS,
      async () => (await load(bareUrl, apiKey, opts.durationS, connections)).requestsPerS,
      opts.runs,
      { better: 'higher' },
    );
    const uncachedLatency = await load(uncachedUrl, apiKey, opts.durationS, 1);
    return { sources: opts.sources, connections, throughput, api: side('ours'), bare: side('reference'), latency, uncached: { throughput: uncachedThroughput, latency: uncachedLatency } };
  } finally {
    await stopProcess(bare);
    await stopProcess(uncached.proc);
  }
}
