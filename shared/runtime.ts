import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import { INGEST_QUEUE, queuePrefix } from './jobs.js';
import type { Logger } from './logger.js';
import { connectRedis, createRedis } from './redis.js';
import { createStore, type Store } from './store/index.js';

/** The connections and store a process role shares. */
export interface Runtime {
  redis: Redis;
  store: Store;
  close(): Promise<void>;
}

/**
 * Connects to Redis and checks it is fit for queues: an eviction policy other
 * than `noeviction` silently drops jobs and locks (THREATS E5), so start-up
 * refuses it.
 */
export async function openRuntime(config: Config, role: 'api' | 'worker' | 'cli', logger: Logger): Promise<Runtime> {
  const redis = createRedis(config.redisUrl, role);
  redis.on('error', (err) => logger.warn({ err: { message: err.message } }, 'redis connection error'));
  await connectRedis(redis);
  await assertNoEviction(redis, logger);
  const store = createStore(redis, { prefix: config.REDIS_KEY_PREFIX, blobTtlSeconds: config.STAGING_TTL_SECONDS });
  return {
    redis,
    store,
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

export async function assertNoEviction(redis: Redis, logger: Logger): Promise<void> {
  let policy: string | undefined;
  try {
    const res = (await redis.config('GET', 'maxmemory-policy')) as string[];
    policy = res[1];
  } catch {
    logger.warn('cannot read maxmemory-policy (CONFIG is disabled); make sure it is noeviction');
    return;
  }
  if (policy && policy !== 'noeviction') {
    throw new Error(`Redis maxmemory-policy is ${policy}; it must be noeviction, or queued jobs can be evicted`);
  }
}

/** The producer side of the ingest queue, failing fast while Redis is down. */
export function openIngestQueue(config: Config, connection?: Redis): Queue {
  return new Queue(INGEST_QUEUE, {
    connection: connection ?? createRedis(config.redisUrl, 'api'),
    prefix: queuePrefix(config.REDIS_KEY_PREFIX),
  });
}
