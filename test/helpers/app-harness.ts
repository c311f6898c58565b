import { randomBytes } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { inject } from 'vitest';
import { createApp } from '../../api/app.js';
import { loadConfig, type Config } from '../../shared/config.js';
import { bullSourceQueue } from '../../shared/jobs.js';
import { openIngestQueue } from '../../shared/runtime.js';
import { createLogger } from '../../shared/logger.js';
import { connectRedis, createRedis } from '../../shared/redis.js';
import { createStore, type Store } from '../../shared/store/index.js';
import { keysUnder } from './redis-server.js';

export interface Harness {
  config: Config;
  redis: Redis;
  store: Store;
  queue: Queue;
  app: ReturnType<typeof createApp>;
  prefix: string;
  /** Makes a key for a workspace and returns the plain key. */
  key(workspaceId: string, opts?: { readOnly?: boolean }): Promise<string>;
  /** Every Redis key under this harness's prefix (store and queue). */
  allKeys(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * An app on the shared test Redis under a fresh key prefix, with its own
 * queue. `close()` deletes exactly the keys it created.
 */
export async function createHarness(env: Record<string, string> = {}): Promise<Harness> {
  const prefix = `t${randomBytes(5).toString('hex')}`;
  // Tests poll freely, so the per-key rate limit is off unless a test sets it.
  const config = loadConfig({ REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: prefix, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0', ...env });
  const redis = createRedis(config.redisUrl, 'api');
  await connectRedis(redis);
  const store = createStore(redis, { prefix, blobTtlSeconds: config.STAGING_TTL_SECONDS });
  const queue = openIngestQueue(config, 'api');
  await queue.waitUntilReady();
  const logger = createLogger('silent');
  const app = createApp({ config, redis, store, queue: bullSourceQueue(queue, config.JOB_ATTEMPTS, config.JOB_BACKOFF_MS), logger, ingestQueue: queue });

  const allKeys = (): Promise<string[]> => keysUnder(redis, prefix);

  return {
    config,
    redis,
    store,
    queue,
    app,
    prefix,
    async key(workspaceId, opts = {}) {
      const { key } = await store.apiKeys.create(workspaceId, 'test', opts.readOnly ?? false);
      return key;
    },
    allKeys,
    async close() {
      await queue.close();
      const keys = await allKeys();
      for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
      await redis.quit();
    },
  };
}
