import type { JobsOptions, Queue } from 'bullmq';
import { z } from 'zod';
import { idSchema } from './schemas/common.js';

/** The one queue: every new or retried source becomes one job on it. */
export const INGEST_QUEUE = 'ingest';
export const EXTRACT_SOURCE_JOB = 'extract-source';
/** Scheduled per knowledge base with auto_refresh_hours: fetch its URL sources again. */
export const REFRESH_KB_JOB = 'refresh-knowledge-base';

/** Job data holds references only, never bytes or text (Bull Board shows it). */
export const extractSourceJobSchema = z.strictObject({
  workspaceId: idSchema,
  kbId: idSchema,
  documentId: idSchema,
  run: z.number().int().min(1),
});
export type ExtractSourceJob = z.infer<typeof extractSourceJobSchema>;

/**
 * Deterministic id, so enqueueing the same run twice is a no-op. No `:` and
 * never all digits, as BullMQ requires. A retry bumps `run` and gets a new id.
 */
export const extractSourceJobId = (d: ExtractSourceJob): string => `${d.kbId}.${d.documentId}.r${d.run}`;

/** BullMQ key prefix; the hash tag keeps one queue's keys in one cluster slot. */
export const queuePrefix = (keyPrefix: string): string => `${keyPrefix}:{queue}`;

/**
 * Retries with exponential backoff (2 s, 4 s, 8 s, ... with jitter) for
 * transient errors; permanent ones are thrown as UnrecoverableError by the
 * processor. Finished jobs are trimmed so history cannot grow without bound.
 */
export function defaultJobOptions(attempts: number, backoffMs = 2_000): JobsOptions {
  return {
    attempts,
    backoff: { type: 'exponential', delay: backoffMs, jitter: 0.2 },
    removeOnComplete: { age: 24 * 3600, count: 1_000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 5_000 },
  };
}

export const refreshKbJobSchema = z.strictObject({ workspaceId: idSchema, kbId: idSchema });
export type RefreshKbJob = z.infer<typeof refreshKbJobSchema>;

/** One job scheduler per knowledge base; no `:` in the id, as BullMQ requires. */
export const refreshSchedulerId = (kbId: string): string => `refresh.${kbId}`;

/** What the API and the reconciler need from the queue. */
export interface SourceQueue {
  enqueue(jobs: ExtractSourceJob[]): Promise<void>;
  /** Refreshes the knowledge base's URL sources every `hours` (0 stops it). */
  scheduleRefresh(job: RefreshKbJob, hours: number): Promise<void>;
}

/** A SourceQueue over a BullMQ Queue. */
export function bullSourceQueue(queue: Queue, attempts: number, backoffMs?: number): SourceQueue {
  const opts = defaultJobOptions(attempts, backoffMs);
  return {
    async enqueue(jobs) {
      if (jobs.length === 0) return;
      await queue.addBulk(
        jobs.map((data) => ({ name: EXTRACT_SOURCE_JOB, data, opts: { ...opts, jobId: extractSourceJobId(data) } })),
      );
    },
    async scheduleRefresh(job, hours) {
      const id = refreshSchedulerId(job.kbId);
      if (hours === 0) {
        await queue.removeJobScheduler(id);
        return;
      }
      const every = hours * 3_600_000;
      // With `every` alone BullMQ runs the first job at once; the first refresh is due one period from now.
      await queue.upsertJobScheduler(
        id,
        { every, startDate: Date.now() + every },
        { name: REFRESH_KB_JOB, data: job, opts: { removeOnComplete: true, removeOnFail: { count: 100 } } },
      );
    },
  };
}
