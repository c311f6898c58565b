import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HostSlotLimits, HostSlots } from '../../shared/store/host-slots.js';

/**
 * The key a host is limited under: the lower-case host name without a
 * trailing dot (IPv6 literals keep their brackets) and the port, the scheme's
 * default when the URL names none. `url` has passed the URL policy.
 */
export function hostKey(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.hostname.toLowerCase().replace(/\.+$/, '')}:${port}`;
}

/** A fetch slot of one host, held until released or until its lease expires. */
export interface HostLease {
  readonly host: string;
  /** Gives the slot back; safe to call twice, and never throws (an unreleased lease expires). */
  release(): Promise<void>;
}

/** The host stayed saturated past the in-process wait: hand the job back to the queue for `delayMs`. */
export class HostBusyError extends Error {
  override readonly name = 'HostBusyError';
  constructor(
    readonly host: string,
    readonly delayMs: number,
  ) {
    super(`too many fetches of ${host} at once; trying again later`);
  }
}

/**
 * The limiter could not be asked (Redis unreachable or failing). The fetch
 * does not go ahead unlimited: the job fails this attempt and is retried like
 * any other job that met a Redis outage.
 */
export class HostLimiterUnavailableError extends Error {
  override readonly name = 'HostLimiterUnavailableError';
  constructor(cause: unknown) {
    super('the per-host fetch limiter is unavailable', { cause });
  }
}

/** Options of {@link HostGate}. */
export interface HostGateOptions extends HostSlotLimits {
  /** How long {@link HostGate.acquire} waits in this process before giving up with HostBusyError. Default 2000. */
  maxWaitMs?: number;
  /** Longest pause between two tries while a host is saturated. Default 100. */
  pollMs?: number;
  /** A job handed back waits between this and twice this, in ms. Default 1000. */
  handBackMs?: number;
}

/**
 * Waits for a fetch slot of a host, shared by every worker replica. Waiting
 * is brief and bounded: tries spaced by at most `pollMs` with jitter (so the
 * waiters of one host do not ask in lockstep), then {@link HostBusyError}, on
 * which the processor hands the job back to the queue delayed rather than
 * holding a worker slot or spending an attempt.
 */
export class HostGate {
  private readonly maxWaitMs: number;
  private readonly pollMs: number;
  private readonly handBackMs: number;
  /** Leases taken here and not yet released, for a worker that stops with fetches still running. */
  private readonly held = new Set<HostLease>();

  constructor(
    private readonly slots: HostSlots,
    private readonly opts: HostGateOptions,
  ) {
    this.maxWaitMs = opts.maxWaitMs ?? 2000;
    this.pollMs = opts.pollMs ?? 100;
    this.handBackMs = opts.handBackMs ?? 1000;
  }

  /** A lease on a slot of `host`; `signal` (the fetch's deadline) ends the wait early with its reason. */
  async acquire(host: string, signal?: AbortSignal): Promise<HostLease> {
    const token = randomUUID();
    const limits = { maxPerHost: this.opts.maxPerHost, leaseMs: this.opts.leaseMs, spacingMs: this.opts.spacingMs };
    const started = Date.now();
    for (;;) {
      signal?.throwIfAborted();
      let attempt;
      try {
        attempt = await this.slots.tryAcquire(host, token, limits);
      } catch (err) {
        throw new HostLimiterUnavailableError(err);
      }
      if (attempt.ok) return this.lease(host, token);
      const jitter = Math.random() * this.pollMs * 0.5;
      const pause = Math.min(attempt.retryInMs, this.pollMs) + jitter;
      if (Date.now() - started + pause > this.maxWaitMs) {
        // A start held back only by the spacing may come right after it; a full host frees a slot at some unknown time.
        const base = attempt.reason === 'spacing' ? attempt.retryInMs : this.handBackMs;
        throw new HostBusyError(host, Math.round(base * (1 + Math.random())));
      }
      try {
        await sleep(pause, undefined, signal ? { signal } : undefined);
      } catch (err) {
        signal?.throwIfAborted(); // the signal's own reason, not the timer's AbortError
        throw err;
      }
    }
  }

  /**
   * Gives back every lease still held: a worker that stops and leaves its
   * running jobs to another replica ends their fetches with its process.
   */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.held].map((lease) => lease.release()));
  }

  private lease(host: string, token: string): HostLease {
    let released = false;
    const lease: HostLease = {
      host,
      release: async () => {
        if (released) return;
        released = true;
        this.held.delete(lease);
        // A lease that cannot be given back now (Redis away) expires on its own.
        await this.slots.release(host, token).catch(() => undefined);
      },
    };
    this.held.add(lease);
    return lease;
  }
}
