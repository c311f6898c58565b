import { rm } from 'node:fs/promises';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.js';
import { loadConfig } from '../../shared/runtime/config.js';
import { bullSourceQueue, INGEST_QUEUE, queuePrefix } from '../../shared/queue/jobs.js';
import { createLogger } from '../../shared/runtime/logger.js';
import { connectRedis, createRedis } from '../../shared/redis/redis.js';
import { createStore } from '../../shared/store/index.js';
import { waitFor } from '../helpers/wait.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/** Its own redis-server, since this test stops and restarts it. */
let server: RedisServerHandle;
let app: ReturnType<typeof createApp>;
let key: string;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  server = await startRedisServer({ appendonly: true });
  const config = loadConfig({ REDIS_URL: server.url, LOG_LEVEL: 'silent' });
  const redis = createRedis(config.redisUrl, 'api');
  await connectRedis(redis);
  const queueRedis = createRedis(config.redisUrl, 'api');
  await connectRedis(queueRedis);
  const queue = new Queue(INGEST_QUEUE, { connection: queueRedis, prefix: queuePrefix(config.REDIS_KEY_PREFIX) });
  queue.on('error', () => undefined);
  redis.on('error', () => undefined);
  const store = createStore(redis, { prefix: config.REDIS_KEY_PREFIX, blobTtlSeconds: 3600 });
  app = createApp({ config, redis, store, queue: bullSourceQueue(queue, 3), logger: createLogger('silent'), ingestQueue: queue });
  key = (await store.apiKeys.create('ws_down', 'k', false)).key;
  closers.push(() => queue.close(), async () => redis.disconnect(), async () => queueRedis.disconnect());
});
afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  await server.stop();
  await rm(server.dir, { recursive: true, force: true });
});

describe('Redis outage', () => {
  it('answers 503 with Retry-After within a second while Redis is down, and recovers after a restart', async () => {
    const form = (): FormData => {
      const f = new FormData();
      f.set('knowledge_base_name', 'outage');
      return f;
    };
    expect((await app.request('/v1/knowledge-bases', { method: 'POST', body: form(), headers: { 'X-API-Key': key } })).status).toBe(201);

    server.process.kill('SIGKILL');
    await new Promise((r) => server.process.once('exit', r));
    const started = Date.now();
    const down = await app.request('/v1/knowledge-bases', { method: 'POST', body: form(), headers: { 'X-API-Key': key } });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    expect(Date.now() - started).toBeLessThan(1_500);
    const body = (await down.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 503, error: 'Service Unavailable', path: '/v1/knowledge-bases' });
    expect((await app.request('/readyz')).status).toBe(503);

    // Same port and data dir: the AOF brings the key back.
    server = await startRedisServer({ appendonly: true, port: server.port, dir: server.dir });
    await waitFor(
      'the API to create again once Redis is back',
      async () => (await app.request('/v1/knowledge-bases', { method: 'POST', body: form(), headers: { 'X-API-Key': key } })).status === 201,
      { timeoutMs: 15_000 },
    );
  });
});
