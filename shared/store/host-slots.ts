import type { RedisClient } from '../redis.js';
import { withCommands, type StoreRedis } from './commands.js';
import type { KeySpace } from './keys.js';

/** How many fetches of one host may run, how long a lease lasts, and how far apart starts must be. */
export interface HostSlotLimits {
  /** Leases of one host at once. */
  maxPerHost: number;
  /** Lease length in ms: a slot whose holder never releases it is free again after this. */
  leaseMs: number;
  /** Least time between two fetch starts of one host, in ms (0: no spacing). */
  spacingMs: number;
}

/** The answer to a slot request: taken, or how long until trying again could succeed. */
export type SlotAttempt = { ok: true } | { ok: false; reason: 'busy' | 'spacing'; retryInMs: number };

/**
 * Fetch slots per host, shared by every worker replica through Redis: a
 * sorted set of lease tokens scored by expiry, and the time the next fetch
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
    const [res, ms] = (await this.redis.hostAcquireSlot(
      this.keys.hostLeases(host),
      this.keys.hostNextStart(host),
      token,
      limits.leaseMs,
      limits.maxPerHost,
      limits.spacingMs,
    )) as [string, number?];
    if (res === 'ok') return { ok: true };
    return { ok: false, reason: res === 'busy' ? 'busy' : 'spacing', retryInMs: Number(ms) };
  }

  /** Gives a slot back; releasing one that expired or was never taken changes nothing. */
  async release(host: string, token: string): Promise<void> {
    await this.redis.zrem(this.keys.hostLeases(host), token);
  }
}
