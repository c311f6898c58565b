import { Queue } from 'bullmq';
import type { Config } from './config.js';
import { INGEST_QUEUE, queuePrefix, WEBHOOK_QUEUE } from '../queue/jobs.js';
import type { Logger } from './logger.js';
import { connectRedis, createRedis, isRedisUnavailable, masters, type RedisClient } from '../redis/redis.js';
import type { StartupAttempt } from '../redis/redis-wait.js';
import { changeRetention, createStore, searchOptions, type Store } from '../store/index.js';

/** The connections and store a process role shares. */
export interface Runtime {
  redis: RedisClient;
  store: Store;
  close(): Promise<void>;
}

/**
 * Connects to Redis and checks it is fit for queues: an eviction policy other
 * than `noeviction` silently drops jobs and locks, so start-up refuses it.
 * The connection belongs to `attempt` until it is committed (see
 * `waitForRedis`), so a Redis lost meanwhile fails the attempt instead of the
 * process.
 */
export async function openRuntime(config: Config, role: 'api' | 'worker' | 'cli', logger: Logger, attempt: StartupAttempt): Promise<Runtime> {
  const redis = attempt.own(createRedis(config, role), (r) => r.disconnect());
  attempt.watch(redis);
  attempt.logErrors(redis, logger, 'redis connection error');
  await connectRedis(redis);
  await assertNoEviction(redis, logger);
  const store = createStore(redis, { prefix: config.REDIS_KEY_PREFIX, blobTtlSeconds: config.STAGING_TTL_SECONDS, changes: changeRetention(config), ...searchOptions(config) });
  return {
    redis,
    store,
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** Checks every master: on a cluster one master that evicts loses that master's share of the jobs. */
export async function assertNoEviction(redis: RedisClient, logger: Logger): Promise<void> {
  for (const node of masters(redis)) {
    let policy: string | undefined;
    try {
      const res = (await node.config('GET', 'maxmemory-policy')) as string[];
      policy = res[1];
    } catch (err) {
      if (isRedisUnavailable(err)) throw err;
      logger.warn('cannot read maxmemory-policy (CONFIG is disabled); make sure it is noeviction');
      continue;
    }
    if (policy && policy !== 'noeviction') {
      const where = redis === node ? 'Redis' : `Redis master ${node.options.host}:${node.options.port}`;
      throw new Error(`${where} maxmemory-policy is ${policy}; it must be noeviction, or queued jobs can be evicted`);
    }
  }
}

/**
 * A queue of the service with a connection of its own, closed with it: the
 * API's fails fast while Redis is down, a worker's waits. The one place a
 * Queue object is built.
 */
export class ServiceQueue extends Queue {
  private readonly connection: RedisClient;

  constructor(name: string, config: Config, role: 'api' | 'worker') {
    const connection = createRedis(config, role);
    super(name, { connection, prefix: queuePrefix(config.REDIS_KEY_PREFIX) });
    this.connection = connection;
  }

  /** Waits until the queue reaches Redis; a queue built while Redis was away stays broken, so an attempt drops it. */
  async opened(attempt: StartupAttempt, logger: Logger): Promise<this> {
    attempt.own(this, (q) => q.abandon());
    attempt.logErrors(this, logger, 'queue connection error');
    await this.waitUntilReady();
    return this;
  }

  /** Drops the connection at once and closes without waiting for Redis. */
  abandon(): Promise<void> {
    this.connection.disconnect();
    return super.close();
  }

  override async close(): Promise<void> {
    await super.close();
    // BullMQ leaves a connection it was given open.
    await this.connection.quit().catch(() => this.connection.disconnect());
  }
}

/** The queue of extraction (and scheduled refresh) jobs. */
export function openIngestQueue(config: Config, role: 'api' | 'worker'): ServiceQueue {
  return new ServiceQueue(INGEST_QUEUE, config, role);
}

/** The queue of webhook deliveries. */
export function openWebhookQueue(config: Config, role: 'api' | 'worker'): ServiceQueue {
  return new ServiceQueue(WEBHOOK_QUEUE, config, role);
}
