import { UnrecoverableError } from 'bullmq';
import { textBatchJobSchema } from '../../shared/queue/jobs.js';
import { runClaimed } from './extract-source.js';
import type { JobHandler } from './job-context.js';

/**
 * A batch of text sources: each is claimed, cut and finished as a job of
 * its own would do it, a few at once. A permanent failure ends its source
 * only; a transient one (Redis unavailable) fails the attempt once the
 * others are done, and the next attempt skips the sources already ended.
 * The job fails only when no source of it ended ready or was skipped.
 */
export const textBatchJob: JobHandler = async (ctx) => {
  const { job, deps } = ctx;
  const parsed = textBatchJobSchema.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError('invalid job data');
  const batch = parsed.data;
  const { workspaceId, kbId } = batch;
  const started = performance.now();
  const log = deps.logger.child({ jobId: job.id, kbId, attempt: job.attemptsMade + 1 });
  const results = await settleAll(batch.sources, TEXT_BATCH_CONCURRENCY, ({ documentId, run }) =>
    runClaimed({ ctx, data: { workspaceId, kbId, documentId, run }, log: log.child({ documentId, run }), inBatch: true }),
  );
  const retry = results.find((r) => r.status === 'rejected' && !(r.reason instanceof UnrecoverableError));
  if (retry?.status === 'rejected') throw retry.reason;
  const counts = { ready: 0, failed: 0, skipped: 0 };
  for (const r of results) counts[r.status === 'rejected' ? 'failed' : r.value.status] += 1;
  const reason = `${counts.ready} ready, ${counts.failed} failed, ${counts.skipped} skipped of ${batch.sources.length} texts`;
  log.info({ ...counts, seconds: (performance.now() - started) / 1000 }, 'batch of texts done');
  if (counts.failed === batch.sources.length) throw new UnrecoverableError(reason);
  return { status: 'ready', reason };
};

/** Sources of one batch of texts processed at once. */
const TEXT_BATCH_CONCURRENCY = 16;

/** `fn` over `items`, at most `limit` at a time, every outcome kept in order (as Promise.allSettled). */
async function settleAll<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      try {
        results[i] = { status: 'fulfilled', value: await fn(items[i]!) };
      } catch (reason) {
        results[i] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
