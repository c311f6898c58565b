import { Redis } from 'ioredis';
import { redactUrl } from '../../shared/redis/redis.js';

/** What an external Redis said about its memory limit and eviction. */
export interface RedisMemoryPolicy {
  /** `maxmemory` in bytes; 0 means no limit. */
  maxmemory: number;
  /** `maxmemory-policy`, e.g. `noeviction` or `allkeys-lru`. */
  policy: string;
  /** Which command answered: `CONFIG GET`, or `INFO memory` where CONFIG is refused (renamed or ACL'd away). */
  source: 'CONFIG GET' | 'INFO memory';
}

/**
 * The least memory a limited external Redis must allow. The suite stages uploads of up to
 * 25 MB in Redis while two files run at once; a full run peaked at about 60 MB on one shared
 * server (used_memory_peak), so this leaves room. Below it, writes fail with OOM in the middle
 * of unrelated tests.
 */
export const MIN_MAXMEMORY = 256 * 1024 * 1024;

const mb = (bytes: number): string => `${Math.round(bytes / (1024 * 1024))} MB`;

/** Reads the limit and policy, through CONFIG GET or, where CONFIG is refused, INFO memory. */
async function readPolicy(redis: Redis): Promise<RedisMemoryPolicy> {
  try {
    const reply = (await redis.call('CONFIG', 'GET', 'maxmemory', 'maxmemory-policy')) as string[];
    const pairs = new Map<string, string>();
    for (let i = 0; i + 1 < reply.length; i += 2) pairs.set(reply[i]!, reply[i + 1]!);
    return { maxmemory: Number(pairs.get('maxmemory') ?? 0), policy: pairs.get('maxmemory-policy') ?? '', source: 'CONFIG GET' };
  } catch {
    // Managed services often rename or forbid CONFIG; INFO reports the same two settings.
    const info = await redis.info('memory');
    const field = (name: string): string | undefined => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
    return { maxmemory: Number(field('maxmemory') ?? 0), policy: field('maxmemory_policy') ?? '', source: 'INFO memory' };
  }
}

/**
 * Checks an external Redis before the suite writes to it, and throws a message that says what it
 * found and why it refuses: an eviction policy other than `noeviction` (an evicted BullMQ key makes
 * a job vanish and a test time out with no sign of why), a `maxmemory` under {@link MIN_MAXMEMORY},
 * a server that cannot be reached, or one that answers neither CONFIG GET nor INFO.
 *
 * @returns what the server reported, when the suite can use it.
 */
export async function checkExternalRedis(url: string): Promise<RedisMemoryPolicy> {
  const shown = redactUrl(url);
  // One attempt, no offline queue: a wrong URL should fail the run at once, not retry for minutes.
  // No ready check: it sends INFO, and a server without INFO must reach the message below, not "cannot connect".
  const redis = new Redis(url, {
    lazyConnect: true,
    enableReadyCheck: false,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  let found: RedisMemoryPolicy;
  try {
    try {
      await redis.connect();
    } catch (err) {
      throw new Error(`REDIS_URL=${shown}: cannot connect (${(err as Error).message}); unset REDIS_URL to let the tests start their own redis-server`);
    }
    try {
      found = await readPolicy(redis);
    } catch (err) {
      throw new Error(`REDIS_URL=${shown}: cannot read maxmemory and maxmemory-policy, CONFIG GET and INFO memory both refused (${(err as Error).message}); the tests need a Redis that does not evict keys, so they refuse one they cannot check`);
    }
  } finally {
    redis.disconnect();
  }
  const seen = `maxmemory ${found.maxmemory === 0 ? '0 (no limit)' : mb(found.maxmemory)}, maxmemory-policy ${found.policy || '(not reported)'}, read with ${found.source}`;
  if (found.policy !== 'noeviction') {
    throw new Error(`REDIS_URL=${shown} has ${seen}. The tests refuse it: with any policy but noeviction Redis may evict BullMQ's keys, and jobs then vanish and tests time out for no visible reason. Use a Redis with maxmemory-policy noeviction, or unset REDIS_URL to let the tests start their own redis-server`);
  }
  if (found.maxmemory !== 0 && found.maxmemory < MIN_MAXMEMORY) {
    throw new Error(`REDIS_URL=${shown} has ${seen}. The tests refuse it: they stage uploads of up to 25 MB, two files at a time, and need maxmemory 0 or at least ${mb(MIN_MAXMEMORY)}; otherwise writes fail with OOM in unrelated tests`);
  }
  return found;
}
