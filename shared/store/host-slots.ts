import type { RedisClient } from '../redis/redis.js';
import { runScript, withCommands, type StoreRedis } from './commands.js';
import { acquireHostSlotScript, startHostFetchScript } from './scripts/host-scripts.js';
import type { KeySpace } from './keys.js';

/** How many fetches of one host may run at once, and how long a lease on one of them lasts. */
export interface HostSlotLimits {
  /** Leases of one host at once. */
  maxPerHost: number;
  /** Lease length in ms: a slot whose holder never releases it is free again after this. */
  leaseMs: number;
}

/** The answer to a request for a slot or a start: granted, or how long until trying again could succeed. */
export type SlotAttempt = { ok: true } | { ok: false; reason: 'busy' | 'spacing'; retryInMs: number };

/**
 * Fetch slots per host, shared by every worker replica through Redis: a
 * sorted set of lease tokens scored by expiry, and the time the next request
 * may start. A holder releases its lease when its fetch ends; one that died
 * holding it loses it when the lease expires.
 */
export class HostSlots {
  private readonly redis: StoreRedis;

  constructor(
    redis: RedisClient,
    private readonly keys: KeySpace,
  ) {
    this.redis = withCommands(redis);
  }

  /** Takes a slot of `host` (`hostname:port`) under `token`, or says why not. Taking one already held is a success. */
  async tryAcquire(host: string, token: string, limits: HostSlotLimits): Promise<SlotAttempt> {
    const reply = await runScript(this.redis, this.keys, acquireHostSlotScript, { host, token, leaseMs: limits.leaseMs, maxPerHost: limits.maxPerHost });
    return reply.kind === 'ok' ? { ok: true } : { ok: false, reason: 'busy', retryInMs: reply.retryInMs };
  }

  /** Records a request start to `host` if the last one began at least `spacingMs` ago, or says how long to wait. */
  async tryStart(host: string, spacingMs: number): Promise<SlotAttempt> {
    const reply = await runScript(this.redis, this.keys, startHostFetchScript, { host, spacingMs });
    return reply.kind === 'ok' ? { ok: true } : { ok: false, reason: 'spacing', retryInMs: reply.retryInMs };
  }

  /** Gives a slot back; releasing one that expired or was never taken changes nothing. */
  async release(host: string, token: string): Promise<void> {
    await this.redis.zrem(this.keys.hostLeases(host), token);
  }
}
