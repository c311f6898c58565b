import type { Job, Queue } from 'bullmq';
import { scanKeys, type RedisClient } from '../shared/redis/redis.js';
import { discoverSiteJobId, extractSourceJobId, sourceJobInfo, sourceJobRef, type DiscoverSiteJob, type ExtractSourceJob, type SourceQueue } from '../shared/queue/jobs.js';
import type { Logger } from '../shared/runtime/logger.js';
import type { SourceErrorCode } from '../shared/source-errors.js';
import type { KbStore } from '../shared/store/kb-store.js';
import type { StoredSource } from '../shared/store/kb-records.js';
import type { SiteStore } from '../shared/store/site-store.js';
import { isActiveStatus } from '../shared/sources/lifecycle.js';
import { requeueSource } from '../shared/verbs/requeue.js';
import { settleReport } from '../shared/store/settle-report.js';
import type { SourceTarget } from '../shared/sources/source-ref.js';
import { failSite } from './sites/sync-site.js';

export interface ReconcilerDeps {
  redis: RedisClient;
  kbs: KbStore;
  queue: Queue;
  sourceQueue: SourceQueue;
  logger: Logger;
  /** A source `processing` for longer than this ends `failed/timeout`. */
  processingDeadlineMs: number;
  /** Site records: without them, discoveries whose job was lost are not looked after. */
  sites?: SiteStore;
}

export interface ReconcileReport {
  scanned: number;
  requeued: number;
  timedOut: number;
  /** Pending sources ended `failed/internal` because their job kept ending without claiming them. */
  abandoned: number;
  /** Processing sources ended `failed/internal` because their job ended without finishing them. */
  interrupted: number;
  /** Ended sources a write applied in part had left in the active index (counts recounted, incomplete ones run again). */
  repaired: number;
  /** Sites discovering whose discovery job was gone or had ended without finishing them, queued again. */
  sitesRequeued: number;
  /** Sites discovering whose job kept ending without finishing them, ended `failed/internal`. */
  sitesFailed: number;
  /** Knowledge bases whose counters did not add up to their sources (a torn commit), counted again. */
  recounted: number;
  /** Metadata changes, large writes of chunks and deletes of large sources whose feed events a crash had left half emitted, finished. */
  metadataResumed: number;
  /** Deletes of sites whose pages a crash had left, finished. */
  sitesSwept: number;
  /** Deleted knowledge bases whose leftover keys a crash had left, swept. */
  swept: number;
}

/** Knowledge bases read from the active index per round trip. */
const PAGE = 200;
/**
 * An index entry whose knowledge base shows no active source is dropped only
 * when it is older than this: the API marks a knowledge base just before the
 * script that adds its sources.
 */
const UNMARK_AFTER_MS = 60_000;
/**
 * A metadata emission that has not advanced for this long was interrupted
 * (each of its batches is one short script): the reconciler finishes it.
 */
export const METADATA_STALE_MS = 60_000;
/** Pending metadata emissions of one knowledge base looked at per pass. */
const METADATA_PAGE = 100;
/**
 * Source records one pass may read to recount knowledge bases whose counters
 * are off. The check itself is one small script per knowledge base; a
 * knowledge base larger than this is recounted when it is the pass's first.
 */
export const RECOUNT_BUDGET = 10_000;

/**
 * Makes sure no source stays `pending` or `processing` forever. It walks only
 * the index of active sources (kept by the same scripts that change a
 * source's state), so its cost follows the work in flight, not the data
 * stored. It re-enqueues sources whose job is gone (Redis restarted without
 * the queue, an enqueue that failed after the commit) under the same
 * deterministic job id, so running it on every replica at once is harmless;
 * it ends sources that have been processing past the deadline as
 * `failed/timeout`. A source still `pending` whose job has already ended
 * (failed or completed without claiming it) gets a fresh job under the same
 * id; one that has waited past the deadline ends `failed/internal` instead.
 * A source still `processing` whose job has failed ends `failed/internal` at
 * once: nothing will finish it. BullMQ fails a job without running it again
 * once it has stalled more than WORKER_MAX_STALLED_COUNT times (its workers
 * died or froze with it each time), and a run's last write can be lost to a
 * Redis outage. Running it again could kill more workers; a user's retry can.
 */
export async function reconcile(deps: ReconcilerDeps, now = Date.now()): Promise<ReconcileReport> {
  const report: ReconcileReport = { scanned: 0, requeued: 0, timedOut: 0, abandoned: 0, interrupted: 0, repaired: 0, sitesRequeued: 0, sitesFailed: 0, recounted: 0, metadataResumed: 0, sitesSwept: 0, swept: 0 };
  const budget = { sources: RECOUNT_BUDGET };
  // Deleted knowledge bases whose own sweep a crash cut short: their leftover keys go now.
  report.swept = await deps.kbs.sweepDeleted(now);
  for (let cursor = 0; ; cursor += PAGE) {
    const page = await deps.kbs.activeKbs(cursor, PAGE);
    for (const { kbId, markedMs } of page) {
      await recount(deps, kbId, now, budget, report);
      const active = await reconcileKb(deps, kbId, now, report);
      if (!active && now - markedMs > UNMARK_AFTER_MS) {
        await deps.kbs.unmarkActive(kbId, markedMs);
        cursor -= 1;
      }
    }
    if (page.length < PAGE) break;
  }
  return report;
}

/**
 * Counts a knowledge base's sources again when its counters do not add up to
 * them: a torn write of the API's commit added sources but not their counts.
 * Sends `knowledge_base.settled` when the recount finds that it had settled.
 */
async function recount(deps: ReconcilerDeps, kbId: string, now: number, budget: { sources: number }, report: ReconcileReport): Promise<void> {
  const maxSources = budget.sources === RECOUNT_BUDGET ? Number.MAX_SAFE_INTEGER : budget.sources;
  const result = await deps.kbs.recountKb(kbId, maxSources, now);
  if (result.kind === 'over_budget') {
    deps.logger.info({ kbId, sources: result.sources }, 'a knowledge base to recount waits for a pass with room');
    return;
  }
  if (result.kind !== 'recounted') return;
  report.recounted += 1;
  const settle = settleReport(result.settled, result.counts);
  budget.sources = Math.max(0, budget.sources - Object.values(settle.sourceCounts).reduce((a, b) => a + b, 0));
  deps.logger.warn({ kbId, sourceCounts: settle.sourceCounts, listed: result.listed }, 'counted the sources of a knowledge base again: its counters did not add up');
}

/** Reconciles one knowledge base; false when it has no active source and no site discovering (or is gone). */
async function reconcileKb(deps: ReconcilerDeps, kbId: string, now: number, report: ReconcileReport): Promise<boolean> {
  const meta = await deps.kbs.getMeta(kbId);
  if (!meta) return false;
  const discovering = meta.sitesDiscovering > 0 && deps.sites ? await reconcileSites(deps, deps.sites, meta.workspaceId, kbId, now, report) : false;
  const emitting = await reconcileMetadata(deps, kbId, now, report);
  const deleting = deps.sites ? await reconcileSiteDeletes(deps, deps.sites, meta.workspaceId, kbId, now, report) : false;
  return (await reconcileSources(deps, meta.workspaceId, kbId, now, report)) || discovering || emitting || deleting;
}

/**
 * Finishes the deletes of sites whose pages a crash (of the API between the
 * steps of a DELETE) left in the knowledge base. True while one is under way.
 */
async function reconcileSiteDeletes(deps: ReconcilerDeps, sites: SiteStore, workspaceId: string, kbId: string, now: number, report: ReconcileReport): Promise<boolean> {
  let left = false;
  for (const { siteId, sinceMs } of await sites.sweeping(kbId)) {
    // A delete may be under way in its request.
    if (now - sinceMs < METADATA_STALE_MS) {
      left = true;
      continue;
    }
    const { removed } = await sites.sweep({ workspaceId, kbId, siteId }, new Date(now).toISOString());
    report.sitesSwept += 1;
    deps.logger.warn({ kbId, siteId, removed }, "finished the delete of a site whose pages a crash had left");
  }
  return left;
}

/**
 * Finishes the metadata changes of a knowledge base whose chunk.upserted
 * events a crash left half emitted (each resumes at its marker, in the same
 * short batches), and the chunk.deleted events of its deleted sources of
 * many chunks. True while the knowledge base has an emission under way.
 */
async function reconcileMetadata(deps: ReconcilerDeps, kbId: string, now: number, report: ReconcileReport): Promise<boolean> {
  const pending = await deps.kbs.pendingMetadata(kbId, METADATA_PAGE);
  let left = pending.length;
  for (const { documentId, sinceMs } of pending) {
    if (now - sinceMs < METADATA_STALE_MS) continue;
    const changes = await deps.kbs.resumeMetadata(kbId, documentId);
    left -= 1;
    if (!changes) continue;
    report.metadataResumed += 1;
    deps.logger.warn({ kbId, documentId }, "finished a source's change-feed events that a crash had left half emitted");
  }
  return left > 0;
}

/**
 * Looks after the sites of a knowledge base still discovering: one whose
 * discovery job is gone (Redis restarted without the queue, an enqueue that
 * failed after the commit) is queued again under the same job id; one whose
 * job ended without finishing it (Redis failed on every attempt's last write)
 * gets a fresh job, or, once it has been discovering past the deadline, ends
 * `failed/internal`. True when a site is still discovering.
 */
async function reconcileSites(deps: ReconcilerDeps, sites: SiteStore, workspaceId: string, kbId: string, now: number, report: ReconcileReport): Promise<boolean> {
  let discovering = false;
  for (const site of await sites.list(kbId)) {
    if (site.status !== 'discovering') continue;
    discovering = true;
    const data: DiscoverSiteJob = { workspaceId, kbId, siteId: site.siteId, run: site.run };
    const log = { kbId, siteId: site.siteId, run: site.run };
    const job = await deps.queue.getJob(discoverSiteJobId(data));
    const state = job ? await job.getState() : 'missing';
    if (state !== 'missing' && state !== 'unknown' && state !== 'failed' && state !== 'completed') continue;
    if (job && (state === 'failed' || state === 'completed')) {
      if (now - Date.parse(site.updatedAt) > deps.processingDeadlineMs) {
        const ended = await failSite({ sites }, data, { code: 'internal', message: 'Discovery stopped unexpectedly; refresh the site to try again' });
        if (ended.finish.kind === 'ok') {
          report.sitesFailed += 1;
          deps.logger.warn(log, 'a discovering site whose job kept ending was marked failed');
        }
        continue;
      }
      try {
        await job.remove();
      } catch {
        continue; // another replica took it over (it is locked)
      }
    }
    await deps.sourceQueue.discover([data]);
    report.sitesRequeued += 1;
    deps.logger.warn({ ...log, state }, 're-enqueued the discovery of a site whose job was gone or had ended');
  }
  return discovering;
}

/** Reconciles the active sources of one knowledge base; false when it has none. */
async function reconcileSources(deps: ReconcilerDeps, workspaceId: string, kbId: string, now: number, report: ReconcileReport): Promise<boolean> {
  const active = await deps.kbs.activeSources(kbId);
  for (const { documentId, sinceMs } of active) {
    const source = await deps.kbs.getSource(kbId, documentId);
    if (!source || !isActiveStatus(source.status)) {
      await repair(deps, { workspaceId, kbId, documentId }, now, report);
      continue;
    }
    report.scanned += 1;
    const data = { workspaceId, kbId, documentId, run: source.run };
    if (source.status === 'processing' && now - sinceMs > deps.processingDeadlineMs) {
      const error = { code: 'timeout' as const, message: 'Processing took too long and was stopped; it can be retried' };
      if (await failSource(deps, data, error, now)) report.timedOut += 1;
      continue;
    }
    const job = await sourceJob(deps.queue, source, data);
    const state = job ? await job.getState() : 'missing';
    const labelled = { ...data, ...sourceJobInfo(source) };
    if (state === 'missing' || state === 'unknown') {
      await deps.sourceQueue.enqueue([labelled]);
      report.requeued += 1;
      deps.logger.warn({ kbId, documentId, run: source.run }, 're-enqueued a source whose job was gone');
    } else if (source.status === 'pending' && (state === 'failed' || state === 'completed')) {
      // The job ended without ever claiming the source (Redis failed before the claim on every attempt).
      await requeueOrGiveUp(deps, job!, labelled, sinceMs, now, report);
    } else if (source.status === 'processing' && state === 'failed') {
      // Nothing will end this source any more: its job failed without writing the
      // outcome (it stalled past WORKER_MAX_STALLED_COUNT, or its last finish met a Redis error).
      const error = { code: 'internal' as const, message: 'Processing stopped unexpectedly; it can be retried' };
      if (await failSource(deps, data, error, now)) {
        report.interrupted += 1;
        deps.logger.warn({ kbId, documentId, run: source.run }, 'a processing source whose job had failed was marked failed');
      }
    }
  }
  return active.length > 0;
}

/**
 * The job that runs this run of the source: the batch of texts its record
 * names (its first run only), else, or once that job is gone, its own job
 * (a source of a lost batch is queued again on its own).
 */
async function sourceJob(queue: Queue, source: StoredSource, data: ExtractSourceJob): Promise<Job | undefined> {
  const batch = source.batchJob && source.run === 1 ? await queue.getJob(source.batchJob) : undefined;
  return batch ?? (await queue.getJob(extractSourceJobId(data)));
}

/**
 * An ended source still in the active index: the scripts that end a source
 * drop it from the index in the same step, so a write was applied in part
 * (a torn AOF transaction after a Redis crash). Mends the counts, and runs a
 * ready source whose extraction is incomplete again.
 */
async function repair(deps: ReconcilerDeps, source: SourceTarget, now: number, report: ReconcileReport): Promise<void> {
  const mended = await requeueSource({ kbs: deps.kbs, queue: deps.sourceQueue }, source, 'repair', new Date(now).toISOString());
  if (mended.requeued === null && (mended.outcome === 'active' || mended.outcome === 'gone' || mended.outcome === 'unlisted')) return;
  report.repaired += 1;
  // The torn write may have taken the settle with it: the recount that mended the counts settled it, events included.
  const log = { kbId: source.kbId, documentId: source.documentId, outcome: mended.requeued ? 'rerun' : mended.outcome };
  if (mended.requeued) {
    deps.logger.warn(log, 'an ended source left half-written was queued again, and its knowledge base recounted');
  } else {
    deps.logger.warn(log, 'an ended source left in the active index was mended, and its knowledge base recounted');
  }
}

/** Ends a source `failed` as the processor would, events included; true when this call ended it. */
async function failSource(deps: ReconcilerDeps, data: ExtractSourceJob, error: { code: SourceErrorCode; message: string }, now: number): Promise<boolean> {
  const report = await deps.kbs.finishSourceReport(data, { status: 'failed', error, keepBlob: true }, { now: new Date(now).toISOString() });
  return report.result === 'ok';
}

async function requeueOrGiveUp(
  deps: ReconcilerDeps,
  job: Job,
  data: ExtractSourceJob,
  sinceMs: number,
  now: number,
  report: ReconcileReport,
): Promise<void> {
  const log = { kbId: data.kbId, documentId: data.documentId, run: data.run };
  if (now - sinceMs > deps.processingDeadlineMs) {
    const error = { code: 'internal' as const, message: 'The source could not be processed; it can be retried' };
    if (await failSource(deps, sourceJobRef(data), error, now)) {
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

/**
 * Builds the active index from the stored knowledge bases, once per
 * deployment: data written before the index existed has pending sources that
 * only a scan can find. Later runs see the marker and return at once.
 */
export async function buildActiveIndexOnce(deps: Pick<ReconcilerDeps, 'redis' | 'kbs' | 'logger'>): Promise<number> {
  const keys = deps.kbs.keys;
  if ((await deps.redis.set(keys.activeIndexBuilt(), new Date().toISOString(), 'NX')) !== 'OK') return 0;
  let indexed = 0;
  for await (const metaKeys of scanKeys(deps.redis, keys.kbMetaPattern())) {
    for (const metaKey of metaKeys) {
      const kbId = keys.kbIdOfMeta(metaKey);
      if (kbId && (await deps.kbs.indexActive(kbId))) indexed += 1;
    }
  }
  if (indexed > 0) deps.logger.info({ knowledgeBases: indexed }, 'indexed the active sources of existing knowledge bases');
  return indexed;
}
