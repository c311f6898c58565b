import { sourceJobInfo, type ExtractSourceJob, type SourceQueue } from '../queue/jobs.js';
import type { StoredSource } from '../store/kb-records.js';
import type { KbStore } from '../store/kb-store.js';
import { settleReport, type SettleReport } from '../store/settle-report.js';
import type { SourceTarget } from '../sources/source-ref.js';

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
  | { requeued: ExtractSourceJob; source?: StoredSource }
  | { requeued: null; outcome: 'active' | 'gone' | 'unlisted' }
  | { requeued: null; outcome: 'mended' | 'failed'; settle: SettleReport };

/**
 * `unconditional`: a URL's refresh fetches without the validators held.
 * `cooldownMs`: a refresh by hand (REFRESH_COOLDOWN_SECONDS): a ready source
 * fetched less than that ago is refused with 429.
 */
export interface RequeueOptions {
  unconditional?: boolean;
  cooldownMs?: number;
}

/**
 * Puts a source back to pending under a new run and enqueues that run: the
 * one verb the API's retry and refresh, the scheduled refresh and the
 * reconciler's repair share. A retry or refresh the store refuses throws its
 * error (404, 403, 409, 400). When the enqueue fails, the source stays
 * pending and the reconciler enqueues it, so the move is not lost.
 */
export async function requeueSource(deps: RequeueDeps, target: SourceTarget, reason: RequeueReason, now: string, opts: RequeueOptions = {}): Promise<RequeueResult> {
  let run: number;
  let record: StoredSource | undefined;
  if (reason === 'repair') {
    const repaired = await deps.kbs.repairSource(target.kbId, target.documentId, now);
    if (repaired.kind === 'mended' || repaired.kind === 'failed') {
      return { requeued: null, outcome: repaired.kind, settle: settleReport(repaired.settled, repaired.counts) };
    }
    if (repaired.kind !== 'rerun') return { requeued: null, outcome: repaired.kind };
    run = repaired.run;
    record = (await deps.kbs.getSource(target.kbId, target.documentId)) ?? undefined;
  } else {
    // The retry and refresh scripts answer with the record after the move: nothing is read again.
    ({ run, source: record } = reason === 'retry' ? await deps.kbs.retrySource(target, now) : await deps.kbs.refreshSource(target, now, opts.cooldownMs));
  }
  const job: ExtractSourceJob = { ...target, run };
  // The job is named after the source's type, with its size, for Bull Board.
  await deps.queue.enqueue([{ ...job, ...(record && sourceJobInfo(record)), ...(opts.unconditional && { unconditional: true as const }) }]);
  return { requeued: job, ...(record && { source: record }) };
}
