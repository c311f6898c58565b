import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/runtime/config.js';
import { connectRedis, createRedis } from '../../shared/redis/redis.js';
import { createStore } from '../../shared/store/index.js';
import { startWorker } from '../../worker/main.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { startCuttingProxy } from '../helpers/cutting-proxy.js';
import { capturingLogger } from '../helpers/log-capture.js';
import { freePort, startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';
import { createKbWith, waitForDocument } from '../helpers/worker-harness.js';

/**
 * The API and the worker are real processes here, started before Redis is
 * there or while it goes away. Their back-off is capped at one second so the
 * waits stay short, and a worker warms one sandbox child.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const BACKOFF_MAX_MS = 1_000;

interface Proc {
  child: ChildProcess;
  /** Every JSON log line so far. */
  lines(): Record<string, unknown>[];
  output(): string;
}

const procs: ChildProcess[] = [];
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of procs.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const clean of cleanups.splice(0).reverse()) await clean().catch(() => undefined);
});

function startProcess(script: string, env: Record<string, string>): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info', REDIS_STARTUP_BACKOFF_MAX_MS: String(BACKOFF_MAX_MS), RATE_LIMIT_PER_MINUTE: '0', SHUTDOWN_GRACE_MS: '500', WORKER_CONCURRENCY: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  procs.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return {
    child,
    output: () => out,
    lines: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

const logged = (p: Proc, msg: string): Record<string, unknown>[] => p.lines().filter((l) => l.msg === msg);

async function exitCode(p: Proc, timeoutMs: number): Promise<number | null> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return p.child.exitCode;
  const timer = setTimeout(() => p.child.kill('SIGKILL'), timeoutMs);
  const [code] = (await once(p.child, 'exit')) as [number | null];
  clearTimeout(timer);
  return code;
}

function prefix(): string {
  return `tstart${randomBytes(4).toString('hex')}`;
}

async function redisOn(port: number, opts: { dir?: string; appendonly?: boolean; args?: string[] } = {}): Promise<RedisServerHandle> {
  const redis = await startRedisServer({ port, ...opts });
  cleanups.push(() => redis.stop());
  return redis;
}

async function harnessOn(redis: RedisServerHandle, keyPrefix: string): Promise<Harness> {
  const h = await createHarness({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: keyPrefix });
  cleanups.push(() => h.close());
  return h;
}

/** The "waiting for Redis" warnings are at least a back-off cap apart, and the only warnings. */
function expectThrottledWaitLines(p: Proc): void {
  const waits = logged(p, 'waiting for Redis');
  expect(waits.length).toBeGreaterThanOrEqual(1);
  const times = waits.map((l) => Date.parse(String(l.time)));
  for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(BACKOFF_MAX_MS - 5);
  // The connection errors behind each attempt are not logged as warnings one by one.
  expect(p.lines().filter((l) => Number(l.level) >= 40 && l.msg !== 'waiting for Redis')).toEqual([]);
}

describe('an API started while Redis is down', () => {
  it('listens at once, answers 503 with Retry-After until Redis is up, then serves', { timeout: 60_000 }, async () => {
    const redisPort = await freePort();
    const apiPort = await freePort();
    const keyPrefix = prefix();
    // A metrics token is set, as a deployment sets one: without it the API warns once that /metrics is closed to all.
    const api = startProcess('api/server.ts', {
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      REDIS_KEY_PREFIX: keyPrefix,
      PORT: String(apiPort),
      HOST: '127.0.0.1',
      METRICS_TOKEN: 'a-metrics-token-of-the-test-0123',
    });
    const base = `http://127.0.0.1:${apiPort}`;
    await waitFor('the API to listen', () => logged(api, 'api listening').length > 0, { timeoutMs: 30_000, describe: api.output });
    await waitFor('the API to report waiting', () => logged(api, 'waiting for Redis').length > 0, { describe: api.output });

    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBe('5');
    const patch = await fetch(`${base}/v1/knowledge-bases/kb_x`, { method: 'PATCH', headers: { 'X-API-Key': 'kbi_whatever' }, body: new FormData() });
    expect(patch.status).toBe(503);
    expect(patch.headers.get('retry-after')).toBe('5');
    expect(patch.headers.get('x-request-id')).toBeTruthy();
    expect(await patch.json()).toMatchObject({ status: 503, error: 'Service Unavailable', path: '/v1/knowledge-bases', timestamp: expect.any(String), message: expect.any(String) });

    await redisOn(redisPort);
    await waitFor('/readyz to answer 200', async () => (await fetch(`${base}/readyz`)).status === 200, { describe: api.output });
    const redis = createRedis(`redis://127.0.0.1:${redisPort}`, 'cli');
    await connectRedis(redis);
    cleanups.push(() => redis.quit());
    const { key } = await createStore(redis, { prefix: keyPrefix, blobTtlSeconds: 60 }).apiKeys.create('ws_startup', 'test', false);
    const form = new FormData();
    form.set('knowledge_base_name', 'after the wait');
    const created = await fetch(`${base}/v1/knowledge-bases`, { method: 'POST', headers: { 'X-API-Key': key }, body: form });
    expect(created.status).toBe(201);
    expect(api.child.exitCode).toBeNull();
    expectThrottledWaitLines(api);
  });
});

describe('a worker started while Redis is down', () => {
  it('waits, logging at most one line per back-off cap, and processes a source once Redis is up', { timeout: 90_000 }, async () => {
    const redisPort = await freePort();
    const keyPrefix = prefix();
    const worker = startProcess('worker/main.ts', { REDIS_URL: `redis://127.0.0.1:${redisPort}`, REDIS_KEY_PREFIX: keyPrefix, LOG_LEVEL: 'info' });
    // Long enough for several attempts at the capped pause.
    await waitFor('four waiting lines', () => logged(worker, 'waiting for Redis').length >= 4, { timeoutMs: 30_000, describe: worker.output });
    expect(worker.child.exitCode).toBeNull();
    expect(logged(worker, 'worker started')).toEqual([]);
    expectThrottledWaitLines(worker);
    // More attempts than lines: the first pause (0.5 s) is shorter than the cap.
    const waits = logged(worker, 'waiting for Redis');
    expect(Number(waits.at(-1)!.attempts)).toBeGreaterThan(waits.length);

    const redis = await redisOn(redisPort);
    const h = await harnessOn(redis, keyPrefix);
    const key = await h.key('ws_startup');
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['Opening hours are nine to five.'])));
    const doc = await waitForDocument(h, key, kbId, docs[0]!, 30_000);
    expect(doc).toMatchObject({ status: 'ready', text: 'Opening hours are nine to five.' });
    expect(logged(worker, 'Redis answered; starting')).toHaveLength(1);
    expect(worker.child.exitCode).toBeNull();
  });

  it('exits 0 at once on SIGTERM while waiting, and so does an API', { timeout: 60_000 }, async () => {
    const redisUrl = `redis://127.0.0.1:${await freePort()}`;
    const worker = startProcess('worker/main.ts', { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix() });
    const api = startProcess('api/server.ts', { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix(), PORT: String(await freePort()), HOST: '127.0.0.1' });
    for (const p of [worker, api]) {
      await waitFor('the process to wait for Redis', () => logged(p, 'waiting for Redis').length > 0, { timeoutMs: 30_000, describe: p.output });
      p.child.kill('SIGTERM');
      expect(await exitCode(p, 5_000), p.output()).toBe(0);
    }
  });
});

describe('a worker whose start-up overlaps a Redis outage', () => {
  it('keeps running when Redis is killed during its start-up, and every accepted source ends ready after Redis restarts', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kb-redis-startup-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const redisPort = await freePort();
    const keyPrefix = prefix();
    let redis = await startRedisServer({ port: redisPort, dir, appendonly: true });
    cleanups.push(() => redis.stop());
    const h = await harnessOn(redis, keyPrefix);
    // The harness's own connections see the outage too.
    h.redis.on('error', () => undefined);
    h.queue.on('error', () => undefined);
    const key = await h.key('ws_startup');
    const texts = Array.from({ length: 52 }, (_, i) => `Accepted source number ${i}.`);
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(texts)));
    expect(docs).toHaveLength(52);

    const clientsBefore = await clientCount(h);
    const worker = startProcess('worker/main.ts', { REDIS_URL: redis.url, REDIS_KEY_PREFIX: keyPrefix });
    // The worker's first connection: its start-up is talking to Redis.
    await waitFor('the worker to connect', async () => (await clientCount(h)) > clientsBefore, { timeoutMs: 30_000, describe: worker.output });
    redis.process.kill('SIGKILL');
    await once(redis.process, 'exit');
    const startedBeforeKill = logged(worker, 'worker started').length;

    await new Promise((r) => setTimeout(r, 3_000));
    expect(worker.child.exitCode, worker.output()).toBeNull();
    redis = await startRedisServer({ port: redisPort, dir, appendonly: true });

    await waitFor(
      'every source to end ready',
      async () => {
        const meta = await h.store.kbs.getMeta(kbId).catch(() => undefined);
        return meta?.sourceCounts.ready === 52 || (meta?.sourceCounts.failed ?? 0) > 0 ? meta : undefined;
      },
      { timeoutMs: 60_000, describe: async () => JSON.stringify((await h.store.kbs.getMeta(kbId).catch(() => undefined))?.sourceCounts) },
    );
    expect((await h.store.kbs.getMeta(kbId))?.sourceCounts).toEqual({ pending: 0, processing: 0, ready: 52, failed: 0 });
    const doc = await waitForDocument(h, key, kbId, docs[51]!);
    expect(doc.text).toBe('Accepted source number 51.');
    expect(startedBeforeKill, 'Redis was killed after start-up had finished').toBe(0);
    expect(worker.child.exitCode, worker.output()).toBeNull();
    expect(logged(worker, 'worker failed to start')).toEqual([]);
  });
});

describe('a worker that loses Redis at a given step of its start-up', () => {
  it('goes back to waiting at the eviction check, at queue creation and at worker creation, then starts and processes a source', { timeout: 120_000 }, async () => {
    const redis = await redisOn(await freePort());
    const h = await harnessOn(redis, prefix());
    // The first attempt loses Redis at CONFIG GET, the second at its second connection (a queue), the third at its sixth (a BullMQ worker's).
    const proxy = await startCuttingProxy(redis.port, [{ command: 'CONFIG' }, { connection: 2 }, { connection: 6 }]);
    cleanups.push(() => proxy.close());
    const { logger, lines } = capturingLogger('info');
    const config = loadConfig({ REDIS_URL: proxy.url, REDIS_KEY_PREFIX: h.prefix, REDIS_STARTUP_BACKOFF_MAX_MS: String(BACKOFF_MAX_MS), WORKER_CONCURRENCY: '1' });
    const worker = await startWorker(config, logger, { reconcileIntervalMs: 3_600_000 });
    cleanups.push(() => worker.close());

    expect(proxy.cuts()).toBe(3);
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const answered = parsed.find((l) => l.msg === 'Redis answered; starting');
    expect(answered?.attempts).toBeGreaterThanOrEqual(4);
    expect(parsed.filter((l) => l.msg === 'waiting for Redis').length).toBeGreaterThanOrEqual(1);
    const key = await h.key('ws_startup');
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['Through the proxy.'])));
    expect(await waitForDocument(h, key, kbId, docs[0]!, 30_000)).toMatchObject({ status: 'ready', text: 'Through the proxy.' });
  });
});

describe('a Redis that evicts keys', () => {
  it('stops a worker and an API at once with the reason, without waiting', { timeout: 60_000 }, async () => {
    const redisPort = await freePort();
    await redisOn(redisPort, { args: ['--maxmemory-policy', 'allkeys-lru'] });
    const redisUrl = `redis://127.0.0.1:${redisPort}`;
    const worker = startProcess('worker/main.ts', { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix() });
    const api = startProcess('api/server.ts', { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix(), PORT: String(await freePort()), HOST: '127.0.0.1' });
    for (const [p, role] of [[worker, 'worker'], [api, 'api']] as const) {
      expect(await exitCode(p, 30_000), p.output()).toBe(1);
      const fatal = logged(p, `${role} failed to start`);
      expect(fatal).toHaveLength(1);
      expect(fatal[0]!.reason).toContain('maxmemory-policy is allkeys-lru; it must be noeviction');
      expect(logged(p, 'waiting for Redis')).toEqual([]);
    }
  });
});

async function clientCount(h: Harness): Promise<number> {
  const list = (await h.redis.call('CLIENT', 'LIST')) as string;
  return list.split('\n').filter(Boolean).length;
}

describe('a wrong Redis password', () => {
  it('stops a worker at once with the reason, without waiting for Redis', { timeout: 60_000 }, async () => {
    const port = await freePort();
    await redisOn(port, { args: ['--requirepass', 'right-secret'] });
    const worker = startProcess('worker/main.ts', { REDIS_URL: `redis://:wrong-secret@127.0.0.1:${port}`, REDIS_KEY_PREFIX: prefix(), LOG_LEVEL: 'info' });
    const code = await exitCode(worker, 30_000);
    expect(code, worker.output()).not.toBe(0);
    expect(code).not.toBeNull();
    expect(logged(worker, 'waiting for Redis')).toEqual([]);
    expect(worker.output()).toMatch(/WRONGPASS|invalid username-password/);
    expect(worker.output()).not.toContain('wrong-secret');
  });
});
