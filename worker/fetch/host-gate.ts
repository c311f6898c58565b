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
  /**
   * Waits until the host's last request started at least the spacing ago and
   * records this one's start; called right before the first request to the
   * host (later calls return at once). `signal` is the fetch's deadline.
   */
  start(signal?: AbortSignal): Promise<void>;
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
  /** Least time between two request starts to one host, in ms (0: no spacing). */
  spacingMs: number;
  /** How long {@link HostGate.acquire} waits in this process before giving up with HostBusyError. Default 2000. */
  maxWaitMs?: number;
  /** Longest pause between two tries while a host is saturated. Default 100. */
  pollMs?: number;
  /** A job handed back waits between this and twice this, in ms. Default 1000. */
  handBackMs?: number;
}

/**
 * Waits for a fetch slot of a host, shared by every worker replica. Waiting
 * for a slot is brief and bounded: tries spaced by at most `pollMs` with
 * jitter (so the waiters of one host do not ask in lockstep), then
 * {@link HostBusyError}, on which the processor hands the job back to the
 * queue delayed rather than holding a worker slot or spending an attempt.
 *
 * The spacing of starts is taken apart from the slot, by the holder right
 * before its request ({@link HostLease.start}), so the time between taking
 * the slot and sending the request does not shorten the gap the host sees.
 * Only slot holders wait for it, at most `maxPerHost - 1` starts of
 * `spacingMs` each, within the fetch's deadline.
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
    const limits = { maxPerHost: this.opts.maxPerHost, leaseMs: this.opts.leaseMs };
    const started = Date.now();
    for (;;) {
      signal?.throwIfAborted();
      const attempt = await ask(() => this.slots.tryAcquire(host, token, limits));
      if (attempt.ok) return this.lease(host, token);
      // A full host frees a slot at an unknown time: poll, not the first lease's expiry.
      const pause = Math.min(attempt.retryInMs, this.pollMs) + Math.random() * this.pollMs * 0.5;
      if (Date.now() - started + pause > this.maxWaitMs) {
        throw new HostBusyError(host, Math.round(this.handBackMs * (1 + Math.random())));
      }
      await pauseFor(pause, signal);
    }
  }

  /** Waits for the spacing after the host's last start and records this start. */
  private async spaceStart(host: string, signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const attempt = await ask(() => this.slots.tryStart(host, this.opts.spacingMs));
      if (attempt.ok) return;
      await pauseFor(attempt.retryInMs + Math.random() * this.pollMs * 0.5, signal);
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
    let started = false;
    const lease: HostLease = {
      host,
      start: async (signal) => {
        if (started) return;
        await this.spaceStart(host, signal);
        started = true;
      },
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

/** One question to the limiter; a Redis failure becomes HostLimiterUnavailableError. */
async function ask<T>(question: () => Promise<T>): Promise<T> {
  try {
    return await question();
  } catch (err) {
    throw new HostLimiterUnavailableError(err);
  }
}

/** Sleeps `ms`; an abort of `signal` ends it with the signal's own reason, not the timer's AbortError. */
async function pauseFor(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, signal ? { signal } : undefined);
  } catch (err) {
    signal?.throwIfAborted();
    throw err;
  }
}
