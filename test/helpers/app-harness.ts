import { randomBytes } from 'node:crypto';
import type { Queue } from 'bullmq';
import { inject } from 'vitest';
import { createApp } from '../../api/app.js';
import { loadConfig, type Config } from '../../shared/runtime/config.js';
import { bullSourceQueue } from '../../shared/queue/jobs.js';
import { openIngestQueue, openWebhookQueue } from '../../shared/runtime/runtime.js';
import { createLogger } from '../../shared/runtime/logger.js';
import { connectRedis, createRedis, type RedisClient } from '../../shared/redis/redis.js';
import { changeRetention, createStore, searchOptions, type Store } from '../../shared/store/index.js';
import { deleteKeys, keysUnder } from './redis-server.js';

export interface Harness {
  config: Config;
  redis: RedisClient;
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
 * An app on the shared test Redis (a cluster in the `cluster` project) under a fresh key prefix, with its own
 * queue. `close()` deletes exactly the keys it created.
 */
export async function createHarness(env: Record<string, string> = {}): Promise<Harness> {
  // A test whose processes must know the prefix before the harness exists passes REDIS_KEY_PREFIX.
  const prefix = env.REDIS_KEY_PREFIX ?? `t${randomBytes(5).toString('hex')}`;
  // Tests poll freely, so the per-key rate limit is off unless a test sets it.
  const cluster = inject('redisClusterNodes');
  // A test that brings its own Redis (REDIS_URL in env) gets exactly that one.
  const target = env.REDIS_URL ? {} : cluster ? { REDIS_CLUSTER_NODES: cluster } : { REDIS_URL: inject('redisUrl') };
  const config = loadConfig({ ...target, REDIS_KEY_PREFIX: prefix, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0', REFRESH_COOLDOWN_SECONDS: '0', KB_VIEW_VERIFY: 'true', ...env });
  const redis = createRedis(config, 'api');
  await connectRedis(redis);
  const store = createStore(redis, { prefix, blobTtlSeconds: config.STAGING_TTL_SECONDS, changes: changeRetention(config), ...searchOptions(config) });
  const queue = openIngestQueue(config, 'api');
  await queue.waitUntilReady();
  const logger = createLogger('silent');
  // The board shows the webhook queue too; other tests need no connection for it.
  const webhookQueue = openWebhookQueue(config, 'api');
  await webhookQueue.waitUntilReady();
  const app = createApp({ config, redis, store, queue: bullSourceQueue(queue, config.JOB_ATTEMPTS, config.JOB_BACKOFF_MS), logger, ingestQueue: queue, webhookQueue });

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
      await webhookQueue.close();
      await deleteKeys(redis, await allKeys());
      await redis.quit();
    },
  };
}
