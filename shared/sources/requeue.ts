import { sourceJobInfo, type ExtractSourceJob, type SourceQueue } from '../queue/jobs.js';
import type { KbStore } from '../store/kb-store.js';
import { settleReport, type SettleReport } from '../store/settle-report.js';
import type { SourceTarget } from './source-ref.js';

/** What putting a source back to pending needs. */
export interface RequeueDeps {
  kbs: KbStore;
  queue: SourceQueue;
}

/**
 * Why a source goes back to pending: a user retries a failed source, a URL
 * source is fetched again (by a user or on schedule), or the reconciler
 * repairs a ready source whose extraction a torn write left incomplete.
 */
export type RequeueReason = 'retry' | 'refresh' | 'repair';

/**
 * A source put back under a new run and enqueued, or, for a repair, what the
 * repair did instead; `settle` when it mended or failed the source, with the
 * settle number when that left its knowledge base with nothing in flight.
 */
export type RequeueResult =
  | { requeued: ExtractSourceJob }
  | { requeued: null; outcome: 'active' | 'gone' | 'unlisted' }
  | { requeued: null; outcome: 'mended' | 'failed'; settle: SettleReport };

/**
 * Puts a source back to pending under a new run and enqueues that run: the
 * one verb the API's retry and refresh, the scheduled refresh and the
 * reconciler's repair share. A retry or refresh the store refuses throws its
 * error (404, 403, 409, 400). When the enqueue fails, the source stays
 * pending and the reconciler enqueues it, so the move is not lost.
 * `unconditional`: a URL's refresh fetches without the validators held.
 */
export async function requeueSource(deps: RequeueDeps, target: SourceTarget, reason: RequeueReason, now: string, opts: { unconditional?: boolean } = {}): Promise<RequeueResult> {
  let run: number;
  if (reason === 'repair') {
    const repaired = await deps.kbs.repairSource(target.kbId, target.documentId, now);
    if (repaired.kind === 'mended' || repaired.kind === 'failed') {
      return { requeued: null, outcome: repaired.kind, settle: settleReport(repaired.settled, repaired.counts) };
    }
    if (repaired.kind !== 'rerun') return { requeued: null, outcome: repaired.kind };
    run = repaired.run;
  } else {
    run = reason === 'retry' ? await deps.kbs.retrySource(target, now) : await deps.kbs.refreshSource(target, now);
  }
  const job: ExtractSourceJob = { ...target, run };
  // The job is named after the source's type, with its size, for Bull Board.
  const record = await deps.kbs.getSource(target.kbId, target.documentId);
  await deps.queue.enqueue([{ ...job, ...(record && sourceJobInfo(record)), ...(opts.unconditional && { unconditional: true as const }) }]);
  return { requeued: job };
}
