import type { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../runtime/logger.js';
import { isRedisUnavailable, type RedisClient } from './redis.js';
import { withTimeout } from '../runtime/timeout.js';

/** How a process waits for Redis at start-up. */
export interface RedisWaitOptions {
  /** Where Redis is, as it may be logged (`describeTarget`: no password). */
  target: string;
  logger: Logger;
  /** Longest pause between two attempts, and the shortest time between two warnings. Default 10000. */
  maxDelayMs?: number;
  /** First pause; it doubles up to `maxDelayMs`. Default 500. */
  initialDelayMs?: number;
  /** Stops the wait (a shutdown): it then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** How long a failed attempt waits for one of its objects to close before leaving it. */
const CLOSE_WAIT_MS = 2_000;

/**
 * What one start-up attempt opened: Redis connections and queue objects. A
 * failed attempt closes all of them, and anything it opens afterwards at
 * once. The loss of a watched connection fails the attempt straight away:
 * a worker's commands would otherwise sit in the offline queue, silently,
 * until Redis is back.
 */
export class StartupAttempt {
  private readonly closers: (() => unknown)[] = [];
  private readonly unwatch: (() => void)[] = [];
  private state: 'open' | 'committed' | 'failed' = 'open';
  private fail: (err: Error) => void = () => undefined;
  /** A refused AUTH seen on a watched connection. */
  private refusal: Error | undefined;
  private readonly lost = new Promise<never>((_, reject) => (this.fail = reject));

  constructor() {
    this.lost.catch(() => undefined);
  }

  /** Registers `thing` to be closed if the attempt fails. Throws once it has failed, so a late step stops there. */
  own<T>(thing: T, close: (thing: T) => unknown): T {
    if (this.state === 'failed') {
      void settle(close(thing));
      throw new Error('Connection is closed.');
    }
    this.closers.push(() => close(thing));
    return thing;
  }

  /** Fails the attempt as soon as `client`'s connection closes, with the error that closed it when there was one. */
  watch(client: RedisClient): void {
    let last: Error | undefined;
    const onError = (err: Error): void => {
      last = err;
      // ioredis retries a refused AUTH like a lost connection; a wrong password will not get better by waiting.
      if (isAuthRefusal(err)) {
        this.refusal = err;
        this.fail(err);
      }
    };
    const onClose = (): void => this.fail(last && (isRedisUnavailable(last) || isAuthRefusal(last)) ? last : new Error('Connection is closed.'));
    client.on('error', onError);
    client.once('close', onClose);
    this.unwatch.push(() => {
      client.off('error', onError);
      client.off('close', onClose);
    });
  }

  /**
   * Logs `emitter`'s errors: at debug level while the attempt runs (the wait
   * logs its own warnings, one per interval), as warnings once it is committed.
   */
  logErrors(emitter: EventEmitter, logger: Logger, message: string): void {
    emitter.on('error', (err: Error) => {
      const fields = { reason: err.message };
      if (this.state === 'committed') logger.warn(fields, message);
      else logger.debug(fields, message);
    });
  }

  /** Runs `open`, failing when a watched connection closes or `signal` aborts. */
  async run<T>(open: (attempt: StartupAttempt) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const opened = open(this);
    opened.catch(() => undefined);
    const onAbort = (): void => this.fail(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await Promise.race([opened, this.lost]);
    } catch (err) {
      // The command may fail first with "Connection is closed."; the refusal behind it is the reason to report.
      throw this.refusal ?? err;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Keeps what the attempt opened. */
  commit(): void {
    this.state = 'committed';
    for (const off of this.unwatch) off();
  }

  /** Closes what the attempt opened, newest first. */
  async rollback(): Promise<void> {
    this.state = 'failed';
    this.fail(new Error('Connection is closed.'));
    for (const off of this.unwatch) off();
    for (const close of this.closers.reverse()) await settle(close());
  }
}

/** A Redis reply refusing the credentials: a wrong password or user, or none given where one is required. */
export function isAuthRefusal(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const word = err.message.split(' ', 1)[0] ?? '';
  return word === 'WRONGPASS' || word === 'NOAUTH' || /invalid (username-)?password/i.test(err.message);
}

/** Waits for `p` for a bounded time, ignoring its outcome. */
async function settle(p: unknown): Promise<void> {
  await withTimeout(Promise.resolve(p).catch(() => undefined), CLOSE_WAIT_MS, () => undefined);
}

/**
 * Runs `open` until it succeeds, while Redis is unavailable (refused, lost,
 * loading, failing over: `isRedisUnavailable`): each failed attempt is closed,
 * then the next one follows after a pause that doubles from 0.5 s up to
 * `maxDelayMs`. One warning is logged at once and then at most one per
 * `maxDelayMs`, however often it tries. Any other error (an eviction policy,
 * a wrong password) is thrown at once.
 */
export async function waitForRedis<T>(open: (attempt: StartupAttempt) => Promise<T>, opts: RedisWaitOptions): Promise<T> {
  const maxDelayMs = opts.maxDelayMs ?? 10_000;
  let delayMs = Math.min(opts.initialDelayMs ?? 500, maxDelayMs);
  const started = Date.now();
  let warnedAt: number | undefined;
  for (let attempts = 1; ; attempts++) {
    opts.signal?.throwIfAborted();
    const attempt = new StartupAttempt();
    try {
      const value = await attempt.run(open, opts.signal);
      attempt.commit();
      if (warnedAt !== undefined) opts.logger.info({ redis: opts.target, attempts, waitedMs: Date.now() - started }, 'Redis answered; starting');
      return value;
    } catch (err) {
      await attempt.rollback();
      opts.signal?.throwIfAborted();
      if (!isRedisUnavailable(err)) throw err;
      if (warnedAt === undefined || Date.now() - warnedAt >= maxDelayMs) {
        warnedAt = Date.now();
        const reason = err instanceof Error ? err.message : String(err);
        opts.logger.warn({ redis: opts.target, attempts, retryInMs: delayMs, reason }, 'waiting for Redis');
      }
    }
    await sleep(delayMs, undefined, opts.signal ? { signal: opts.signal } : {});
    delayMs = Math.min(delayMs * 2, maxDelayMs);
  }
}
