import type { RedisClient } from '../../shared/redis/redis.js';
import type { MiddlewareHandler } from 'hono';
import { TooManyRequestsError } from '../../shared/errors.js';
import { isRedisUnavailable } from '../../shared/redis/redis.js';
import type { KeySpace } from '../../shared/store/keys.js';
import type { AppEnv } from '../context.js';

/**
 * Requests per API key per minute, counted in Redis so every API replica
 * shares the budget. A fixed one-minute window: one INCR and, on
 * the first request of a window, one EXPIRE. `perMinute` 0 turns it off.
 */
export function rateLimit(redis: RedisClient, keys: KeySpace, perMinute: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (perMinute > 0) {
      const now = Date.now();
      const minute = Math.floor(now / 60_000);
      const key = keys.rateWindow(c.get('principal').keyId, minute);
      let count: number;
      try {
        [[, count]] = (await redis.multi().incr(key).expire(key, 120, 'NX').exec()) as [[Error | null, number]];
      } catch (err) {
        // A Redis that refuses writes (out of memory) must not also refuse reads: count nothing and go on.
        if (!isRedisUnavailable(err)) throw err;
        return next();
      }
      c.header('RateLimit-Limit', String(perMinute));
      c.header('RateLimit-Remaining', String(Math.max(0, perMinute - count)));
      if (count > perMinute) {
        const retryAfter = Math.max(1, Math.ceil(((minute + 1) * 60_000 - now) / 1000));
        throw new TooManyRequestsError(retryAfter, `More than ${perMinute} requests in a minute with this key; retry after ${retryAfter} s`);
      }
    }
    await next();
  };
}
