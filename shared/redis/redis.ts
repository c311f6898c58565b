import { Cluster, Redis, ReplyError, type ClusterOptions, type RedisOptions } from 'ioredis';
import { withTimeout } from '../runtime/timeout.js';

/** A connection to one Redis or to a Redis Cluster; the rest of the code sees only this. */
export type RedisClient = Redis | Cluster;
export type RedisRole = 'api' | 'worker' | 'cli';

/** Where Redis is: one URL, or the seed nodes of a cluster (then the URL is not used). */
export interface RedisTarget {
  redisUrl: string;
  redisClusterNodes?: { host: string; port: number }[] | undefined;
}

/**
 * Opens a Redis connection for one role, to one Redis or to a cluster.
 * - `api`: fails fast while Redis is down (no offline queue), so a request gets
 *   a 503 within a second instead of hanging while Redis is down.
 * - `worker`: BullMQ's blocking connections need `maxRetriesPerRequest: null`.
 * A bare URL is a single Redis.
 */
export function createRedis(target: RedisTarget | string, role: RedisRole, extra: RedisOptions = {}): RedisClient {
  const t: RedisTarget = typeof target === 'string' ? { redisUrl: target } : target;
  const byRole: Record<RedisRole, RedisOptions> = {
    api: { enableOfflineQueue: false, maxRetriesPerRequest: 1 },
    // A batch of texts sends its scripts from many lanes at once: one write per tick, not one per command.
    worker: { maxRetriesPerRequest: null, enableAutoPipelining: true },
    cli: { maxRetriesPerRequest: 1, retryStrategy: () => null },
  };
  // ioredis' default keeps retrying forever with this backoff: 50 ms .. 2 s.
  const backoff = (times: number): number => Math.min(times * 50, 2_000);
  if (t.redisClusterNodes && t.redisClusterNodes.length > 0) {
    // The cluster reconnects its nodes itself: a per-node retry strategy is not allowed.
    const { enableOfflineQueue, retryStrategy: _perNode, ...perNode } = { ...byRole[role], ...extra };
    const options: ClusterOptions = {
      lazyConnect: true,
      // The API refuses while the cluster is not ready, as it does without a cluster.
      enableOfflineQueue: enableOfflineQueue ?? true,
      clusterRetryStrategy: role === 'cli' ? () => null : backoff,
      // A failover takes a few seconds: redirected and refused commands wait and retry meanwhile.
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 200,
      retryDelayOnTryAgain: 200,
      redisOptions: { connectTimeout: 5_000, ...clusterNodeAuth(t.redisUrl), ...perNode },
    };
    return new Cluster(t.redisClusterNodes, options);
  }
  return new Redis(t.redisUrl, { lazyConnect: true, connectTimeout: 5_000, retryStrategy: backoff, ...byRole[role], ...extra });
}

/**
 * How every node of a cluster is connected to, taken from REDIS_URL as in
 * single-Redis mode: its user name and password (AUTH on each node, the
 * replicas promoted in a failover included) and, for `rediss://`, TLS. The
 * URL's host and port are not used; the seeds come from REDIS_CLUSTER_NODES.
 */
export function clusterNodeAuth(redisUrl: string): Pick<RedisOptions, 'username' | 'password' | 'tls'> {
  let url: URL;
  try {
    url = new URL(redisUrl);
  } catch {
    return {};
  }
  return {
    ...(url.username !== '' && { username: decodeURIComponent(url.username) }),
    ...(url.password !== '' && { password: decodeURIComponent(url.password) }),
    ...(url.protocol === 'rediss:' && { tls: {} }),
  };
}

/** The masters to ask for what each Redis answers for itself (SCAN, INFO, CONFIG). */
export function masters(redis: RedisClient): Redis[] {
  return redis instanceof Cluster ? redis.nodes('master') : [redis];
}

/** Every key matching `pattern`, from every master, in pages (SCAN, never KEYS). */
export async function* scanKeys(redis: RedisClient, pattern: string, count = 500): AsyncGenerator<string[]> {
  for (const node of masters(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      if (keys.length > 0) yield keys;
    } while (cursor !== '0');
  }
}

/** A human-readable name of the target, with any password hidden. */
export function describeTarget(t: RedisTarget): string {
  if (t.redisClusterNodes && t.redisClusterNodes.length > 0) return `cluster ${t.redisClusterNodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
  return redactUrl(t.redisUrl);
}

/** How long {@link connectRedis} waits for a client to become ready by default. */
export const CONNECT_READY_MS = 15_000;

/**
 * Connects a lazily created client and waits until it is ready, at most
 * `timeoutMs`. A Cluster whose nodes answer but never agree on a layout (a
 * failover under way, a node killed) reconnects forever without an `end`
 * event, so without the bound this wait could last for good.
 */
export async function connectRedis(redis: RedisClient, timeoutMs = CONNECT_READY_MS): Promise<void> {
  if (redis.status === 'ready') return;
  const ready =
    redis.status === 'wait'
      ? redis.connect()
      : new Promise<void>((resolve, reject) => {
          redis.once('ready', resolve);
          redis.once('end', () => reject(new Error('redis connection ended')));
        });
  await withTimeout(ready, timeoutMs, () => {
    throw new Error(`redis was not ready within ${timeoutMs} ms (status ${redis.status})`);
  });
}

/** Redis reply codes that mean "not now": out of memory, loading, a failover under way. */
const UNAVAILABLE_REPLIES = new Set(['OOM', 'EXECABORT', 'LOADING', 'READONLY', 'CLUSTERDOWN', 'MASTERDOWN', 'TRYAGAIN', 'BUSY', 'NOREPLICAS']);
/** Socket error codes of a connection that failed or broke. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTCONN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED', 'EAI_AGAIN']);
/**
 * ioredis rejects a command with a plain Error carrying one of these exact
 * messages when the connection is closed or not writable (no class or code).
 */
const CLOSED_MESSAGES = new Set([
  'Connection is closed.',
  "Stream isn't writeable and enableOfflineQueue options is false",
  // A cluster none of whose nodes answers.
  'None of startup nodes is available',
  "Cluster isn't ready and enableOfflineQueue options is false",
]);

/** The start of the message of ioredis's Cluster error once a command has been redirected too often. */
const TOO_MANY_REDIRECTIONS = 'Too many Cluster redirections.';

/**
 * True for errors that mean "Redis is unreachable, full or failing over",
 * which the API answers with 503 and a Retry-After rather than 500. Told apart
 * by class (`MaxRetriesPerRequestError`), by the reply's error code (the first
 * word of a Redis error reply, e.g. `OOM`; `EXECABORT` when a transaction was
 * refused for such a reason) or by socket error code.
 */
export function isRedisUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'MaxRetriesPerRequestError' || err.name === 'ClusterAllFailedError') return true;
  if (err instanceof ReplyError) return UNAVAILABLE_REPLIES.has(err.message.split(' ', 1)[0] ?? '');
  const code = (err as NodeJS.ErrnoException).code;
  if (code && CONNECTION_CODES.has(code)) return true;
  // A cluster whose master was killed: ioredis retries on the other nodes until its redirections run out.
  if (err.message.startsWith(TOO_MANY_REDIRECTIONS)) return true;
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
