import { Worker, type AdvancedOptions, type Processor } from 'bullmq';
import type { Config } from '../shared/runtime/config.js';
import { queuePrefix } from '../shared/queue/jobs.js';
import type { Logger } from '../shared/runtime/logger.js';
import { createRedis, type RedisClient } from '../shared/redis/redis.js';
import type { StartupAttempt } from '../shared/redis/redis-wait.js';

/** What differs between our BullMQ consumers; everything else is wired the same way. */
export interface QueueWorkerOptions {
  /** The queue's name, without the key prefix. */
  queue: string;
  processor: Processor;
  /** Jobs run at once in this process. */
  concurrency: number;
  /** Lock of an active job, ms. Default: BullMQ's (30000). */
  lockDurationMs?: number;
  /** How often stalled jobs are looked for, ms. Default: BullMQ's (30000). */
  stalledIntervalMs?: number;
  /** Stalls before a job fails. Default: BullMQ's (1). */
  maxStalledCount?: number;
  /** BullMQ's advanced settings (a custom backoff strategy). */
  settings?: AdvancedOptions;
}

/** A BullMQ Worker on a connection of its own, reached Redis but not yet taking jobs. */
export interface QueueWorker {
  worker: Worker;
  /** Starts taking jobs; a failure of the run loop becomes an `error` event, which is logged. */
  run(): void;
  /**
   * Stops taking jobs and waits for the active ones, with no timeout of its
   * own (callers bound it). Idempotent.
   */
  drain(): Promise<void>;
  /** Closes the connection, after `drain()`; Redis being down does not hold it up. */
  disconnect(): Promise<void>;
  /** Drops everything at once without waiting for jobs: a start-up that failed after this was opened. */
  abort(): Promise<void>;
}

/**
 * Opens a BullMQ Worker the way every consumer of ours needs it: its own
 * blocking connection with the worker role's settings, our key prefix, no
 * autorun (jobs start with `run()`, once the whole process is up), errors
 * logged through the start-up attempt (debug while it runs, warnings once
 * committed), and both owned by the attempt so a failed start-up closes them.
 * Resolves once the worker has reached Redis.
 */
export async function openQueueWorker(config: Config, attempt: StartupAttempt, logger: Logger, opts: QueueWorkerOptions): Promise<QueueWorker> {
  // A blocking connection of its own: BullMQ's BRPOPLPUSH must not hold up other commands.
  const connection: RedisClient = attempt.own(createRedis(config, 'worker'), (c) => c.disconnect());
  const worker = new Worker(opts.queue, opts.processor, {
    connection,
    prefix: queuePrefix(config.REDIS_KEY_PREFIX),
    concurrency: opts.concurrency,
    autorun: false,
    ...(opts.lockDurationMs !== undefined && { lockDuration: opts.lockDurationMs }),
    ...(opts.stalledIntervalMs !== undefined && { stalledInterval: opts.stalledIntervalMs }),
    ...(opts.maxStalledCount !== undefined && { maxStalledCount: opts.maxStalledCount }),
    ...(opts.settings && { settings: opts.settings }),
  });
  attempt.own(worker, (w) => w.close(true));
  attempt.logErrors(worker, logger, 'worker connection error');
  await worker.waitUntilReady();

  let draining: Promise<void> | undefined;
  return {
    worker,
    run() {
      worker.run().catch((err: unknown) => worker.emit('error', err instanceof Error ? err : new Error(String(err))));
    },
    drain() {
      draining ??= worker.close();
      return draining;
    },
    async disconnect() {
      await connection.quit().catch(() => connection.disconnect());
    },
    async abort() {
      await worker.close(true);
      connection.disconnect();
    },
  };
}
