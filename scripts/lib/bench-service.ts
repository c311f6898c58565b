import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { createStore, type Store } from '../../shared/store/index.js';
import { freePort, startRedisServer, type RedisServerHandle } from '../../test/helpers/redis-server.js';
import { costPerJob, redisCounters, type RedisCost } from './bench-redis-cost.js';
import { SeededRandom } from './seeded-random.js';
import { processCpuSeconds, rssSampler, startNode, stopProcess, waitFor } from './bench-util.js';

/** The key prefix of the service under benchmark. */
export const BENCH_PREFIX = 'bench';
const PREFIX = BENCH_PREFIX;

/**
 * The real service, compiled, on a throwaway redis-server on loopback: one
 * API process and as many worker processes as a measurement asks for.
 */
export class BenchService {
  private constructor(
    readonly redisServer: RedisServerHandle,
    readonly redis: Redis,
    readonly store: Store,
    readonly api: ChildProcess,
    readonly base: string,
    readonly apiKey: string,
    private readonly distDir: string,
  ) {}

  static async start(distDir: string): Promise<BenchService> {
    const redisServer = await startRedisServer();
    const port = await freePort();
    const api = await startNode([resolve(distDir, 'api/server.js')], {
      ...serviceEnv(redisServer.url),
      PORT: String(port),
      HOST: '127.0.0.1',
    });
    const base = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.ok === true, 30_000, 'the API', 100);
    const redis = new Redis(redisServer.url);
    const store = createStore(redis, { prefix: PREFIX, blobTtlSeconds: 3600 });
    const { key } = await store.apiKeys.create('ws_bench', 'bench', false);
    return new BenchService(redisServer, redis, store, api, base, key, distDir);
  }

  get redisUrl(): string {
    return this.redisServer.url;
  }

  /** Starts `count` worker processes with `WORKER_CONCURRENCY=concurrency` and waits until each takes jobs. */
  startWorkers(count: number, concurrency: number, extraEnv: Record<string, string> = {}): Promise<ChildProcess[]> {
    const env = { ...serviceEnv(this.redisUrl), WORKER_CONCURRENCY: String(concurrency), LOG_LEVEL: 'info', ...extraEnv };
    return Promise.all(Array.from({ length: count }, () => startNode([resolve(this.distDir, 'worker/main.js')], env, '"worker started"')));
  }

  /** Another API process on the same Redis with `extraEnv` (e.g. a setting turned off), and its base URL. */
  async startApi(extraEnv: Record<string, string>): Promise<{ proc: ChildProcess; base: string }> {
    const port = await freePort();
    const proc = await startNode([resolve(this.distDir, 'api/server.js')], { ...serviceEnv(this.redisUrl), PORT: String(port), HOST: '127.0.0.1', ...extraEnv });
    const base = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.ok === true, 30_000, 'the API', 100);
    return { proc, base };
  }

  async stopWorkers(workers: ChildProcess[]): Promise<void> {
    await Promise.all(workers.map(stopProcess));
  }

  /**
   * A key of a workspace no earlier run used, so that no timed run finds an
   * extraction of the same bytes to reuse or a text to de-duplicate.
   */
  freshWorkspaceKey(): Promise<string> {
    return this.keyFor(`ws_bench_${process.pid}_${++this.workspaces}`);
  }

  private workspaces = 0;

  /** A new API key of `workspaceId`. */
  async keyFor(workspaceId: string): Promise<string> {
    return (await this.store.apiKeys.create(workspaceId, 'bench', false)).key;
  }

  /** Creates a knowledge base (with `texts` as its first sources) under `apiKey` (default: the bench workspace's). */
  async createKb(apiKey = this.apiKey, texts: string[] = []): Promise<string> {
    const form = new FormData();
    form.set('knowledge_base_name', 'bench');
    if (texts.length > 0) form.set('knowledge_base_texts', JSON.stringify(texts));
    const res = await fetch(`${this.base}/v1/knowledge-bases`, { method: 'POST', body: form, headers: { 'X-API-Key': apiKey } });
    if (res.status !== 201) throw new Error(`create knowledge base: ${res.status}`);
    return ((await res.json()) as { kbId: string }).kbId;
  }

  /** PATCHes sources onto a knowledge base; `fill` sets the form fields. */
  async patch(kbId: string, fill: (form: FormData) => void, apiKey = this.apiKey): Promise<void> {
    const form = new FormData();
    fill(form);
    const res = await fetch(`${this.base}/v1/knowledge-bases/${kbId}`, { method: 'PATCH', body: form, headers: { 'X-API-Key': apiKey } });
    if (res.status !== 200) throw new Error(`PATCH: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  }

  /** Resolves when `total` sources of the knowledge base are ready or failed (read from Redis, not through the API). */
  async settled(kbId: string, total: number, timeoutMs = 600_000): Promise<{ ready: number; failed: number }> {
    let counts = { ready: 0, failed: 0 };
    await waitFor(
      async () => {
        const meta = await this.store.kbs.getMeta(kbId);
        counts = { ready: meta?.sourceCounts.ready ?? 0, failed: meta?.sourceCounts.failed ?? 0 };
        return counts.ready + counts.failed >= total;
      },
      timeoutMs,
      'every source to settle',
      25,
    );
    return counts;
  }

  async close(): Promise<void> {
    await stopProcess(this.api);
    this.redis.disconnect();
    await this.redisServer.stop();
  }
}

function serviceEnv(redisUrl: string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: PREFIX,
    LOG_LEVEL: 'warn',
    // The bench measures throughput, not the per-key limit or the per-request cap.
    RATE_LIMIT_PER_MINUTE: '0',
    MAX_SOURCES_PER_REQUEST: '1000',
  };
}

export interface EndToEndRun {
  seconds: number;
  ready: number;
  failed: number;
  /** Peak RSS of the worker processes and their sandbox children together. */
  peakWorkerRssMb: number;
}

/** Files through the service: PATCH every file in one request, time until each source settled. */
export async function filesEndToEnd(
  svc: BenchService,
  files: { path: string; name: string }[],
  workers: number,
  concurrency: number,
  extraEnv: Record<string, string> = {},
): Promise<EndToEndRun> {
  const procs = await svc.startWorkers(workers, concurrency, extraEnv);
  try {
    const blobs = await Promise.all(files.map(async (f) => ({ name: f.name, blob: new Blob([await readFile(f.path)]) })));
    // A fresh workspace: the same bytes uploaded in an earlier run would be taken over, not extracted.
    const apiKey = await svc.freshWorkspaceKey();
    const kbId = await svc.createKb(apiKey);
    const sampler = rssSampler(() => procs.flatMap((p) => (p.pid ? [p.pid] : [])));
    const started = performance.now();
    await svc.patch(kbId, (form) => {
      for (const f of blobs) form.append('knowledge_base_files', f.blob, f.name);
    }, apiKey);
    const counts = await svc.settled(kbId, files.length);
    const seconds = (performance.now() - started) / 1000;
    return { seconds, ...counts, peakWorkerRssMb: sampler.stop() };
  } finally {
    await svc.stopWorkers(procs);
  }
}

/** A text run: the end-to-end figures and what the jobs cost Redis. */
export interface TextRun extends EndToEndRun {
  redis: RedisCost;
  /** CPU time of the worker process per text job (user and system, from /proc), ms. */
  workerCpuMsPerJob: number;
}

/** The texts of a text run, as one PATCH of at most 1,000 sends them. */
/** What warms a fresh worker up before a timed run of texts: one request's worth of other texts. */
const WARM_UP_TEXTS = Array.from({ length: 200 }, (_, i) => `Warm-up note ${i}: the library lends books for three weeks.`);

export function benchTexts(offset: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `Note ${offset + i}: the office opens at nine and closes at five.`);
}

/**
 * `count` short text sources through the service with one worker process,
 * PATCHed 1,000 at a time to a knowledge base of a fresh workspace; timed and
 * counted (Redis commands, round trips, CPU) from the first PATCH until every
 * source is ready, after an untimed request of texts has warmed the worker up.
 */
export async function textsEndToEnd(svc: BenchService, count: number, concurrency: number, workers = 1): Promise<TextRun> {
  const procs = await svc.startWorkers(workers, concurrency);
  try {
    const apiKey = await svc.freshWorkspaceKey();
    // A long-running worker has its tokenizer built (about a second of CPU, once) and its hot code compiled,
    // as the bench process is for the bare runs after the first: a request of other texts first, untimed.
    const warmUp = await svc.createKb(apiKey, WARM_UP_TEXTS);
    await svc.settled(warmUp, WARM_UP_TEXTS.length);
    const kbId = await svc.createKb(apiKey);
    const sampler = rssSampler(() => procs.flatMap((p) => (p.pid ? [p.pid] : [])));
    const before = await redisCounters(svc.redis);
    const workerCpu = (): number => procs.reduce((sum, p) => sum + (p.pid ? processCpuSeconds(p.pid) : 0), 0);
    const cpuBefore = workerCpu();
    const started = performance.now();
    for (let offset = 0; offset < count; offset += 1000) {
      const texts = benchTexts(offset, Math.min(1000, count - offset));
      await svc.patch(kbId, (form) => form.set('knowledge_base_texts', JSON.stringify(texts)), apiKey);
    }
    const counts = await svc.settled(kbId, count);
    const seconds = (performance.now() - started) / 1000;
    const workerCpuMsPerJob = ((workerCpu() - cpuBefore) * 1000) / count;
    const redis = costPerJob(before, await redisCounters(svc.redis), count);
    return { seconds, ...counts, peakWorkerRssMb: sampler.stop(), redis, workerCpuMsPerJob };
  } finally {
    await svc.stopWorkers(procs);
  }
}

const WORDS = (
  'the library lends books for three weeks and renews them once unless another reader has asked for the same title ' +
  'members may borrow up to twelve items at a time including films music and magazines from the reading room ' +
  'opening hours change during the summer when the branch closes early on fridays and stays shut on public holidays ' +
  'a lost card is replaced at the front desk for a small fee and the old one stops working the same day'
).split(' ');

/**
 * `count` paragraphs of about `chars` characters each (words from a small
 * vocabulary in a seeded order, so every text differs and runs repeat),
 * numbered from `offset`: what users add, not one-liners.
 */
export function paragraphTexts(offset: number, count: number, chars: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const rnd = new SeededRandom(offset + i + 1);
    const sentences: string[] = [];
    let length = 0;
    while (length < chars) {
      const n = rnd.int(8, 18);
      const words = Array.from({ length: n }, () => WORDS[rnd.int(0, WORDS.length - 1)]!);
      words[0] = words[0]!.charAt(0).toUpperCase() + words[0]!.slice(1);
      const sentence = `${words.join(' ')}.`;
      sentences.push(sentence);
      length += sentence.length + 1;
    }
    return `Paragraph ${offset + i}. ${sentences.join(' ')}`.slice(0, chars);
  });
}

export interface PolledTextOptions {
  /** Characters of each text. */
  chars: number;
  /** Texts per PATCH. */
  perPatch: number;
  /** How often the client GETs the knowledge base through the API, ms. */
  pollMs: number;
}

/** A polled text run: the end-to-end figures, the GETs the client made and what they cost. */
export interface PolledTextRun extends TextRun {
  /** When the last PATCH was answered, seconds from the first. */
  patchSeconds: number;
  gets: number;
  /** Median and largest latency of the client's GETs, ms, and the largest body, bytes. */
  getP50Ms: number;
  getMaxMs: number;
  getMaxBytes: number;
  /** CPU time of the API process per text (its PATCHes and the GETs), ms. */
  apiCpuMsPerJob: number;
}

/**
 * `count` texts of `o.chars` characters PATCHed `o.perPatch` at a time, one
 * request after another, while the client polls `GET /v1/knowledge-bases/{id}`
 * every `o.pollMs` until it answers a settled knowledge base: the shape of a
 * user adding paragraphs and watching them arrive. Timed from the first
 * PATCH to the GET that shows every source settled.
 */
export async function textsPolledEndToEnd(svc: BenchService, count: number, concurrency: number, o: PolledTextOptions): Promise<PolledTextRun> {
  const procs = await svc.startWorkers(1, concurrency);
  try {
    const apiKey = await svc.freshWorkspaceKey();
    const warmUp = await svc.createKb(apiKey, WARM_UP_TEXTS);
    await svc.settled(warmUp, WARM_UP_TEXTS.length);
    const kbId = await svc.createKb(apiKey);
    const sampler = rssSampler(() => procs.flatMap((p) => (p.pid ? [p.pid] : [])));
    const before = await redisCounters(svc.redis);
    const cpuOf = (ps: ChildProcess[]): number => ps.reduce((sum, p) => sum + (p.pid ? processCpuSeconds(p.pid) : 0), 0);
    const cpuBefore = cpuOf(procs);
    const apiBefore = cpuOf([svc.api]);
    const latencies: number[] = [];
    let maxBytes = 0;
    let patched = false;
    let aborted = false;
    let counts = { ready: 0, failed: 0 };
    const get = async (): Promise<boolean> => {
      const t = performance.now();
      const res = await fetch(`${svc.base}/v1/knowledge-bases/${kbId}`, { headers: { 'X-API-Key': apiKey } });
      const body = await res.text();
      latencies.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`GET: ${res.status} ${body.slice(0, 200)}`);
      maxBytes = Math.max(maxBytes, body.length);
      const kb = JSON.parse(body) as { status: string; sourceCounts: { ready: number; failed: number } };
      counts = { ready: kb.sourceCounts.ready, failed: kb.sourceCounts.failed };
      return patched && kb.status !== 'in_progress' && counts.ready + counts.failed >= count;
    };
    const started = performance.now();
    const poll = (async () => {
      const deadline = started + 600_000;
      for (;;) {
        const next = performance.now() + o.pollMs;
        if (aborted || (await get())) return;
        if (performance.now() > deadline) throw new Error(`texts not settled after 600 s (${counts.ready} ready, ${counts.failed} failed)`);
        await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
      }
    })();
    try {
      for (let offset = 0; offset < count; offset += o.perPatch) {
        const texts = paragraphTexts(offset, Math.min(o.perPatch, count - offset), o.chars);
        await svc.patch(kbId, (form) => form.set('knowledge_base_texts', JSON.stringify(texts)), apiKey);
      }
    } catch (err) {
      aborted = true;
      await poll.catch(() => undefined);
      throw err;
    }
    patched = true;
    const patchSeconds = (performance.now() - started) / 1000;
    await poll;
    const seconds = (performance.now() - started) / 1000;
    const workerCpuMsPerJob = ((cpuOf(procs) - cpuBefore) * 1000) / count;
    const apiCpuMsPerJob = ((cpuOf([svc.api]) - apiBefore) * 1000) / count;
    const redis = costPerJob(before, await redisCounters(svc.redis), count);
    latencies.sort((a, b) => a - b);
    return {
      seconds,
      ...counts,
      peakWorkerRssMb: sampler.stop(),
      redis,
      workerCpuMsPerJob,
      apiCpuMsPerJob,
      patchSeconds,
      gets: latencies.length,
      getP50Ms: latencies[Math.floor(latencies.length / 2)] ?? 0,
      getMaxMs: latencies.at(-1) ?? 0,
      getMaxBytes: maxBytes,
    };
  } finally {
    await svc.stopWorkers(procs);
  }
}
