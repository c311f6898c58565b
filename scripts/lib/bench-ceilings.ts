import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { freePort } from '../../test/helpers/redis-server.js';
import type { BenchService } from './bench-service.js';
import { median, startNode, stopProcess } from './bench-util.js';

/** Seconds for a bare BullMQ worker to complete `count` no-op jobs on the same Redis: the queue's ceiling. */
export async function bareBullmq(redisUrl: string, count: number, concurrency: number): Promise<number> {
  const name = `noop-${Date.now()}`;
  const prefix = 'benchnoop';
  const connections = [new Redis(redisUrl, { maxRetriesPerRequest: null }), new Redis(redisUrl, { maxRetriesPerRequest: null })] as const;
  const queue = new Queue(name, { connection: connections[0], prefix });
  const worker = new Worker(name, async () => undefined, { connection: connections[1], prefix, concurrency });
  await worker.waitUntilReady();
  let done = 0;
  const finished = new Promise<void>((resolve) => worker.on('completed', () => ++done === count && resolve()));
  const started = performance.now();
  await queue.addBulk(Array.from({ length: count }, (_, i) => ({ name: 'noop', data: { i } })));
  await finished;
  const seconds = (performance.now() - started) / 1000;
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  for (const c of connections) c.disconnect();
  return seconds;
}

export interface HttpFigures {
  requestsPerS: number;
  p99Ms: number;
}

async function load(url: string, apiKey: string, durationS: number): Promise<HttpFigures> {
  const result = await autocannon({ url, connections: 10, duration: durationS, headers: { 'X-API-Key': apiKey } });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { requestsPerS: result.requests.average, p99Ms: result.latency.p99 };
}

/**
 * GET of one knowledge base with `sources` text sources: the API beside the
 * bare handler, alternating, `runs` times each for `durationS` seconds.
 */
export async function getBench(svc: BenchService, opts: { runs: number; durationS: number; sources: number }) {
  const kbId = await svc.createKb();
  const texts = Array.from({ length: opts.sources }, (_, i) => ({ title: `Note ${i}`, text: `Opening hours, entry ${i}: nine to five.` }));
  await svc.patch(kbId, (form) => form.set('knowledge_base_texts', JSON.stringify(texts)));
  const workers = await svc.startWorkers(1, 2);
  await svc.settled(kbId, opts.sources);
  await svc.stopWorkers(workers);

  const port = await freePort();
  const bareScript = fileURLToPath(new URL('./bare-get-server.ts', import.meta.url));
  const bare = await startNode(['--import', 'tsx', bareScript], { REDIS_URL: svc.redisUrl, PREFIX: 'bench', PORT: String(port) }, 'listening');
  const api: HttpFigures[] = [];
  const ceiling: HttpFigures[] = [];
  try {
    // Warm both up before measuring.
    await load(`${svc.base}/v1/knowledge-bases/${kbId}`, svc.apiKey, 1);
    await load(`http://127.0.0.1:${port}/v1/knowledge-bases/${kbId}`, svc.apiKey, 1);
    for (let run = 0; run < opts.runs; run++) {
      api.push(await load(`${svc.base}/v1/knowledge-bases/${kbId}`, svc.apiKey, opts.durationS));
      ceiling.push(await load(`http://127.0.0.1:${port}/v1/knowledge-bases/${kbId}`, svc.apiKey, opts.durationS));
    }
  } finally {
    await stopProcess(bare);
  }
  const med = (xs: HttpFigures[]): HttpFigures => ({ requestsPerS: median(xs.map((x) => x.requestsPerS)), p99Ms: median(xs.map((x) => x.p99Ms)) });
  return { sources: opts.sources, api: med(api), bare: med(ceiling) };
}
