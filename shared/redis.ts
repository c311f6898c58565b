import { Redis, type RedisOptions } from 'ioredis';

/**
 * Opens a Redis connection for one role.
 * - `api`: fails fast while Redis is down (no offline queue), so a request gets
 *   a 503 within a second instead of hanging (THREATS E1).
 * - `worker`: BullMQ's blocking connections need `maxRetriesPerRequest: null`.
 */
export function createRedis(url: string, role: 'api' | 'worker' | 'cli', extra: RedisOptions = {}): Redis {
  const base: RedisOptions = {
    lazyConnect: true,
    connectTimeout: 5_000,
    // ioredis' default keeps retrying forever with this backoff: 50 ms .. 2 s.
    retryStrategy: (times) => Math.min(times * 50, 2_000),
  };
  const byRole: Record<typeof role, RedisOptions> = {
    api: { enableOfflineQueue: false, maxRetriesPerRequest: 1 },
    worker: { maxRetriesPerRequest: null },
    cli: { maxRetriesPerRequest: 1, retryStrategy: () => null },
  };
  return new Redis(url, { ...base, ...byRole[role], ...extra });
}

/** Connects a lazily created client and waits until it is ready. */
export async function connectRedis(redis: Redis): Promise<void> {
  if (redis.status === 'wait') await redis.connect();
  else if (redis.status !== 'ready') {
    await new Promise<void>((resolve, reject) => {
      redis.once('ready', resolve);
      redis.once('end', () => reject(new Error('redis connection ended')));
    });
  }
}

/**
 * True for errors that mean "Redis is unreachable or refusing writes", which
 * the API answers with 503 rather than 500.
 */
export function isRedisUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const m = err.message;
  return (
    err.name === 'MaxRetriesPerRequestError' ||
    /Connection is closed|Stream isn't writeable|ECONNREFUSED|ECONNRESET|ETIMEDOUT|^OOM |LOADING|READONLY|CLUSTERDOWN/.test(m)
  );
}
