import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { extractSourceJobId, type ExtractSourceJob, type SourceQueue } from '../shared/jobs.js';
import type { Logger } from '../shared/logger.js';
import type { KbStore } from '../shared/store/kb-store.js';

export interface ReconcilerDeps {
  redis: Redis;
  kbs: KbStore;
  queue: Queue;
  sourceQueue: SourceQueue;
  logger: Logger;
  /** A source `processing` for longer than this ends `failed/timeout`. */
  processingDeadlineMs: number;
}

export interface ReconcileReport {
  scanned: number;
  requeued: number;
  timedOut: number;
  /** Pending sources ended `failed/internal` because their job kept ending without claiming them. */
  abandoned: number;
}

/**
 * Makes sure no source stays `pending` or `processing` forever. It re-enqueues
 * sources whose job is gone (Redis restarted without the queue, an enqueue
 * that failed after the commit) under the same deterministic job id, so
 * running it on every replica at once is harmless; and it ends sources that
 * have been processing past the deadline as `failed/timeout`. A source still
 * `pending` whose job has already ended (failed or completed without claiming
 * it) gets a fresh job under the same id; one that has waited past the
 * deadline ends `failed/internal` instead, so nothing stays pending forever.
 */
export async function reconcile(deps: ReconcilerDeps, now = Date.now()): Promise<ReconcileReport> {
  const report: ReconcileReport = { scanned: 0, requeued: 0, timedOut: 0, abandoned: 0 };
  const pattern = `${deps.kbs.keys.prefix}:{kb:*}:meta`;
  let cursor = '0';
  do {
    const [next, metaKeys] = await deps.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    cursor = next;
    for (const metaKey of metaKeys) {
      const kbId = /\{kb:([^}]+)\}/.exec(metaKey)?.[1];
      if (kbId) await reconcileKb(deps, kbId, now, report);
    }
  } while (cursor !== '0');
  return report;
}

async function reconcileKb(deps: ReconcilerDeps, kbId: string, now: number, report: ReconcileReport): Promise<void> {
  const meta = await deps.kbs.getMeta(kbId);
  if (!meta || meta.sourceCounts.pending + meta.sourceCounts.processing === 0) return;
  const found = await deps.kbs.get(kbId);
  if (!found) return;
  for (const source of found.sources) {
    if (source.status !== 'pending' && source.status !== 'processing') continue;
    report.scanned += 1;
    const data = { workspaceId: meta.workspaceId, kbId, documentId: source.documentId, run: source.run };
    const job = await deps.queue.getJob(extractSourceJobId(data));
    const state = job ? await job.getState() : 'missing';
    const age = now - Date.parse(source.updatedAt);
    if (source.status === 'processing' && age > deps.processingDeadlineMs) {
      const res = await deps.kbs.finishSource(
        kbId,
        source.documentId,
        source.run,
        { status: 'failed', error: { code: 'timeout', message: 'Processing took too long and was stopped; it can be retried' }, keepBlob: true },
        new Date(now).toISOString(),
      );
      if (res === 'ok') report.timedOut += 1;
      continue;
    }
    if (state === 'missing' || state === 'unknown') {
      await deps.sourceQueue.enqueue([data]);
      report.requeued += 1;
      deps.logger.warn({ kbId, documentId: source.documentId, run: source.run }, 're-enqueued a source whose job was gone');
    } else if (source.status === 'pending' && (state === 'failed' || state === 'completed')) {
      // The job ended without ever claiming the source (Redis failed before the claim on every attempt).
      await requeueOrGiveUp(deps, job!, data, source.updatedAt, now, report);
    }
  }
}

async function requeueOrGiveUp(
  deps: ReconcilerDeps,
  job: Job,
  data: ExtractSourceJob,
  since: string,
  now: number,
  report: ReconcileReport,
): Promise<void> {
  const log = { kbId: data.kbId, documentId: data.documentId, run: data.run };
  if (now - Date.parse(since) > deps.processingDeadlineMs) {
    const res = await deps.kbs.finishSource(
      data.kbId,
      data.documentId,
      data.run,
      { status: 'failed', error: { code: 'internal', message: 'The source could not be processed; it can be retried' }, keepBlob: true },
      new Date(now).toISOString(),
    );
    if (res === 'ok') {
      report.abandoned += 1;
      deps.logger.warn(log, 'a pending source whose job kept ending was marked failed');
    }
    return;
  }
  // The ended job holds the deterministic id; it must go before the same id can be queued again.
  try {
    await job.remove();
  } catch {
    return; // another replica took it over (it is locked): nothing to do here
  }
  await deps.sourceQueue.enqueue([data]);
  report.requeued += 1;
  deps.logger.warn(log, 're-enqueued a pending source whose job had ended');
}
