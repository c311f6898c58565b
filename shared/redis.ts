import { Redis, ReplyError, type RedisOptions } from 'ioredis';

/**
 * Opens a Redis connection for one role.
 * - `api`: fails fast while Redis is down (no offline queue), so a request gets
 *   a 503 within a second instead of hanging while Redis is down.
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

/** Redis reply codes that mean "not now": out of memory, loading, a failover under way. */
const UNAVAILABLE_REPLIES = new Set(['OOM', 'EXECABORT', 'LOADING', 'READONLY', 'CLUSTERDOWN', 'MASTERDOWN', 'TRYAGAIN', 'BUSY', 'NOREPLICAS']);
/** Socket error codes of a connection that failed or broke. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTCONN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
/**
 * ioredis rejects a command with a plain Error carrying one of these exact
 * messages when the connection is closed or not writable (no class or code).
 */
const CLOSED_MESSAGES = new Set(['Connection is closed.', "Stream isn't writeable and enableOfflineQueue options is false"]);

/**
 * True for errors that mean "Redis is unreachable, full or failing over",
 * which the API answers with 503 and a Retry-After rather than 500. Told apart
 * by class (`MaxRetriesPerRequestError`), by the reply's error code (the first
 * word of a Redis error reply, e.g. `OOM`; `EXECABORT` when a transaction was
 * refused for such a reason) or by socket error code.
 */
export function isRedisUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'MaxRetriesPerRequestError') return true;
  if (err instanceof ReplyError) return UNAVAILABLE_REPLIES.has(err.message.split(' ', 1)[0] ?? '');
  const code = (err as NodeJS.ErrnoException).code;
  if (code && CONNECTION_CODES.has(code)) return true;
  return CLOSED_MESSAGES.has(err.message);
}

/**
 * A URL as it may be printed or logged: any password is replaced by `***`
 * (a user name stays, it names the account). Something that does not parse
 * as a URL is not shown at all, since it may be a secret pasted by mistake.
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(unparsable URL)';
  }
}
