import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { JobOutcome } from '../../shared/queue/job-metrics.js';
import { chunkingTag, effectiveChunking, type ChunkSettings } from '../../shared/chunking/chunk-settings.js';
import {
  DISCOVER_SITE_JOB,
  extractSourceJobSchema,
  LEGACY_JOB_NAMES,
  RECHUNK_KB_JOB,
  rechunkKbJobSchema,
  REFRESH_KB_JOB,
  type ExtractSourceJob,
  refreshKbJobSchema,
  sourceJobRef,
  TEXT_BATCH_JOB,
  textBatchJobSchema,
  type SourceQueue,
  type TextBatchJob,
} from '../../shared/queue/jobs.js';
import type { Logger } from '../../shared/runtime/logger.js';
import type { SourceProgress } from '../../shared/schemas/knowledge-base.js';
import { isActiveStatus } from '../../shared/sources/lifecycle.js';
import type { SourceRef } from '../../shared/sources/source-ref.js';
import { SourceError, isSourceError, type SourceErrorCode } from '../../shared/source-errors.js';
import { checkSourceUrl } from '../../shared/net/url-policy.js';
import { HostBusyError, hostKey, HostLimiterUnavailableError, type HostGate, type HostLease } from '../fetch/host-gate.js';
import { ingestSource, type IngestDeps } from './ingest-source.js';
import { rechunkKnowledgeBase } from './rechunk-kb.js';
import { refreshKnowledgeBase } from './refresh-kb.js';
import { isRefreshOfReady, keptAfterFailedRefresh } from './refresh-outcomes.js';
import type { SiteStore } from '../../shared/store/site-store.js';
import type { StoredSource } from '../../shared/store/kb-records.js';
import { settleLandedPage } from '../sites/site-alias.js';
import { runSiteJob } from '../sites/site-job.js';
import { sourceLogFields } from './source-log.js';
import type { SiteSyncDeps } from '../sites/sync-site.js';
import { privateAccess } from '../../shared/net/address-policy.js';

/**
 * Failures after which a file's staged bytes are kept (for a day at most),
 * because a retry could succeed (ocr_unavailable: once the worker has
 * Tesseract). Any other failure, a limit the file exceeds
 * (too_complex) included, would fail again the same way: its bytes go at once.
 */
const KEEP_BYTES_FOR: ReadonlySet<SourceErrorCode> = new Set(['timeout', 'internal', 'ocr_unavailable']);

export interface ProcessorDeps extends IngestDeps {
  logger: Logger;
  /** Where scheduled refreshes queue their sources. */
  queue: SourceQueue;
  /** Called once per finished source, for metrics. */
  onOutcome?(o: JobOutcome): void;
  /** Per-host fetch slots shared by every replica; without it URL fetches are not limited per host. */
  hosts?: HostGate;
  /** Site records and the fetch of site discovery; without them site discovery jobs fail. */
  sites?: SiteStore;
  siteFetch?: SiteSyncDeps['fetchFor'];
  /** The workspace quotas a site's pages count against. */
  quotas?: SiteSyncDeps['quotas'];
}

export interface JobResult {
  status: 'ready' | 'failed' | 'skipped';
  reason?: string;
}

/**
 * Processes one job of the ingest queue. An extraction job (named after its
 * source's type) has its data parsed first, then the source is claimed for
 * this run; a job whose source is gone, finished or re-run under a newer run
 * writes nothing. Permanent failures end the source
 * `failed` at once (UnrecoverableError: no retry); transient ones are thrown
 * for BullMQ to retry with backoff, and end it `failed` on the last attempt.
 *
 * A URL source takes a slot of its host before it is claimed, so one waiting
 * for its host stays `pending`. When the host stays saturated past a brief
 * wait, the job goes back to the queue delayed (`DelayedError`), which is not
 * an attempt; the same happens when a redirect leads to a saturated host.
 */
export function createProcessor(deps: ProcessorDeps) {
  // `token` is the attempt's job lock token; claiming the source with it
  // fences off an attempt whose lock lapsed (a frozen worker whose job was
  // taken over), so only the current holder's result is written.
  const chunkDefaults: ChunkSettings = { maxTokens: deps.config.CHUNK_MAX_TOKENS, overlapTokens: deps.config.CHUNK_OVERLAP_TOKENS };
  return async (job: Job, token?: string): Promise<JobResult> => {
    // Jobs queued before an upgrade carry the names of the time.
    const name = LEGACY_JOB_NAMES[job.name] ?? job.name;
    if (name === RECHUNK_KB_JOB) {
      const rechunk = rechunkKbJobSchema.safeParse(job.data);
      if (!rechunk.success) throw new UnrecoverableError('invalid job data');
      const done = await rechunkKnowledgeBase({ ...deps, chunkDefaults }, rechunk.data);
      return { status: 'ready', reason: `${done.rechunked} sources re-chunked` };
    }
    if (name === REFRESH_KB_JOB) {
      const refresh = refreshKbJobSchema.safeParse(job.data);
      if (!refresh.success) throw new UnrecoverableError('invalid job data');
      const count = await refreshKnowledgeBase(deps, refresh.data);
      return { status: 'ready', reason: `${count} URL sources queued again` };
    }
    if (name === DISCOVER_SITE_JOB) {
      if (!deps.sites || !deps.siteFetch) throw new UnrecoverableError('site discovery is not set up in this worker');
      return runSiteJob({ ...deps, sites: deps.sites, fetchFor: deps.siteFetch }, job, token);
    }
    if (name === TEXT_BATCH_JOB) {
      const batch = textBatchJobSchema.safeParse(job.data);
      if (!batch.success) throw new UnrecoverableError('invalid job data');
      return processTextBatch(job, token, batch.data);
    }
    const parsed = extractSourceJobSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError('invalid job data');
    // Any other name is an extraction job: named after its source's type, or an older `extract-source`.
    const ref = sourceJobRef(parsed.data);
    const { workspaceId, kbId, documentId, run } = ref;
    const log = deps.logger.child({ jobId: job.id, kbId, documentId, run, attempt: job.attemptsMade + 1 });

    // A URL source takes its host's slot before it is claimed, so it reads its record first;
    // any other source is claimed at once, the claim replying with what the job needs.
    let lease: HostLease | undefined;
    if (deps.hosts && (parsed.data.jobType === undefined || parsed.data.jobType === 'url')) {
      // The job names a workspace; a job added by hand (Bull Board) that does
      // not match the knowledge base's owner is refused, never processed.
      const [meta, unclaimed] = await Promise.all([deps.kbs.getMeta(kbId), deps.kbs.getSource(kbId, documentId)]);
      if (!meta || meta.workspaceId !== workspaceId) return { status: 'skipped', reason: 'gone' };
      try {
        lease = await takeHostSlot(deps, unclaimed, run);
      } catch (err) {
        if (err instanceof HostBusyError) return handBack(job, token, err, log);
        throw err; // the limiter is unavailable: this attempt fails before the claim, as with any Redis outage
      }
    }
    try {
      return await processClaimed(job, token, { ...ref, ...(parsed.data.unconditional && { unconditional: true }) }, log, lease);
    } finally {
      await lease?.release();
    }
  };

  /**
   * The settings may have changed while this run cut its chunks (or a
   * refresh kept chunks of older ones): the re-chunk of the knowledge base
   * then covers this source too. `kbChunking` is what the finish script
   * found, so no read is needed; a change after it re-chunks every ready
   * source, this one included. A failed enqueue is logged; the next change
   * of the settings covers it.
   */
  async function rechunkIfChanged(workspaceId: string, kbId: string, usedTag: string | undefined, kbChunking: ChunkSettings | undefined, log: Logger): Promise<void> {
    const now = effectiveChunking(kbChunking, chunkDefaults);
    if (usedTag === chunkingTag(now)) return;
    await deps.queue.rechunk({ workspaceId, kbId, ...now }).catch((err: unknown) => log.warn({ err }, 'could not queue a re-chunk'));
  }

  /**
   * A batch of text sources: each is claimed, cut and finished as a job of
   * its own would do it, a few at once. A permanent failure ends its source
   * only; a transient one (Redis unavailable) fails the attempt once the
   * others are done, and the next attempt skips the sources already ended.
   * The job fails only when no source of it ended ready or was skipped.
   */
  async function processTextBatch(job: Job, token: string | undefined, batch: TextBatchJob): Promise<JobResult> {
    const { workspaceId, kbId } = batch;
    const started = performance.now();
    const log = deps.logger.child({ jobId: job.id, kbId, attempt: job.attemptsMade + 1 });
    const results = await settleAll(batch.sources, TEXT_BATCH_CONCURRENCY, ({ documentId, run }) =>
      processClaimed(job, token, { workspaceId, kbId, documentId, run }, log.child({ documentId, run }), undefined, true),
    );
    const retry = results.find((r) => r.status === 'rejected' && !(r.reason instanceof UnrecoverableError));
    if (retry?.status === 'rejected') throw retry.reason;
    const counts = { ready: 0, failed: 0, skipped: 0 };
    for (const r of results) counts[r.status === 'rejected' ? 'failed' : r.value.status] += 1;
    const reason = `${counts.ready} ready, ${counts.failed} failed, ${counts.skipped} skipped of ${batch.sources.length} texts`;
    log.info({ ...counts, seconds: (performance.now() - started) / 1000 }, 'batch of texts done');
    if (counts.failed === batch.sources.length) throw new UnrecoverableError(reason);
    return { status: 'ready', reason };
  }

  async function processClaimed(
    job: Job,
    token: string | undefined,
    data: ExtractSourceJob,
    log: Logger,
    lease: HostLease | undefined,
    inBatch?: boolean,
  ): Promise<JobResult> {
    const { workspaceId, kbId, documentId, run } = data;
    const ref: SourceRef = { kbId, documentId, run };
    const claim = token ?? '';
    // One script claims the source for this attempt (refused for another workspace's
    // knowledge base) and replies with the record and the chunking settings the job goes on with.
    const start = await deps.kbs.startSourceReport(ref, { now: new Date().toISOString(), claim, workspaceId });
    const claimed = start.result;
    if (claimed !== 'ok') {
      log.info({ result: 'skipped', reason: claimed }, 'nothing to do');
      return { status: 'skipped', reason: claimed };
    }
    const source = start.source;
    if (!source) return { status: 'skipped', reason: 'gone' };
    return processSource(job, token, data, log, lease, source, effectiveChunking(start.chunking, chunkDefaults), inBatch);
  }

  async function processSource(
    job: Job,
    token: string | undefined,
    data: ExtractSourceJob,
    jobLog: Logger,
    lease: HostLease | undefined,
    source: StoredSource,
    chunking: ChunkSettings,
    inBatch?: boolean,
  ): Promise<JobResult> {
    const { workspaceId, kbId, documentId, run } = data;
    // Every line about this source says which one it is; each outcome line says how it ended in `result`.
    const log = jobLog.child(sourceLogFields(source));
    const ref: SourceRef = { kbId, documentId, run };
    const claim = token ?? '';
    let late: HostLease | undefined;
    const started = performance.now();
    try {
      // A batch job holds texts only (the API groups nothing else); one naming another source, added by hand, fails it.
      if (inBatch && source.type !== 'text') throw new SourceError('internal', 'Only text sources run in a batch of texts; retry the source');
      // A URL job whose name did not say so takes its host's slot now: a busy host hands it back, and
      // an unavailable limiter fails the attempt, with the source processing, as during a redirect.
      if (!lease && deps.hosts && source.type === 'url') late = await takeHostSlot(deps, source, run);
      const slot = lease ?? late;
      let landed: string | undefined;
      const fetch: ProcessorDeps['fetch'] = async (url, _lease, conditional) => {
        const fetched = await deps.fetch(url, slot, conditional);
        landed = fetched.finalUrl;
        return fetched;
      };
      // A page its sitemap says changed is fetched without the validators held: a server may answer 304 to them wrongly.
      const { etag: _etag, lastModified: _lastModified, ...unvalidated } = source;
      const outcome = await ingestSource({ ...deps, fetch }, kbId, data.unconditional ? unvalidated : source, chunking, progressWriter(deps, ref, claim));
      // A site's page that redirects to another page of the site is that page's source.
      if (landed && deps.sites) {
        const page = await settleLandedPage({ kbs: deps.kbs, sites: deps.sites }, { workspaceId, kbId, documentId }, source, landed);
        if (page.kind === 'alias') {
          log.info({ result: 'alias', owner: page.owner }, 'page redirects to another source of its site; kept as its alias');
          return { status: 'skipped', reason: 'alias' };
        }
      }
      const report = await deps.kbs.finishSourceReport(ref, outcome, { now: new Date().toISOString(), claim });
      const res = report.result;
      const seconds = (performance.now() - started) / 1000;
      if (res !== 'ok' && res !== 'repeated') {
        // Another attempt finished or holds the source: this result is not written.
        log.info({ result: 'not_written', reason: res, seconds }, 'result not written; the source has moved on');
        return { status: 'skipped', reason: res };
      }
      // A batch's texts are told of one line per batch; each at debug level.
      const repeated = res === 'repeated' && { repeated: true };
      log[inBatch ? 'debug' : 'info']({ result: 'ready', chars: outcome.text.length, mimeType: outcome.mimeType, seconds, ...repeated }, 'source ready');
      deps.onOutcome?.({ type: source.type, status: 'ready', mimeType: outcome.mimeType, bytes: outcome.sizeBytes, seconds });
      if (source.type === 'file' && source.sha256) {
        // Later uploads of the same bytes in this workspace take this extraction over.
        await deps.kbs.recordExtractedFile(workspaceId, source.sha256, kbId, documentId).catch(() => undefined);
      }
      // This attempt's finish was written before its reply was lost (a failover): its events were written with it.
      if (res === 'repeated') return { status: 'ready' };
      await rechunkIfChanged(workspaceId, kbId, outcome.unchanged ? source.chunking : chunkingTag(chunking), report.chunking, log);
      return { status: 'ready' };
    } catch (err) {
      // A redirect to a saturated host: the source stays processing under this run, and the job comes back.
      if (err instanceof HostBusyError) return handBack(job, token, err, log);
      const failure = isSourceError(err) ? err : new SourceError('internal', 'Processing failed unexpectedly; it can be retried', true);
      if (err instanceof HostLimiterUnavailableError) log.warn('per-host fetch limiter unavailable');
      else if (!isSourceError(err)) log.error({ err }, 'unexpected processing error');
      const attempts = job.opts.attempts ?? 1;
      const last = !failure.retryable || job.attemptsMade + 1 >= attempts;
      if (!last) {
        log.warn({ result: 'retrying', code: failure.code }, 'transient failure; will retry');
        throw failure;
      }
      const kept = await keptAfterFailedRefresh(deps.kbs, kbId, source, failure);
      if (kept) {
        const report = await deps.kbs.finishSourceReport(ref, kept, { now: new Date().toISOString(), claim });
        const written = report.result === 'ok' || report.result === 'repeated';
        log.warn({ result: written ? 'kept' : 'not_written', code: failure.code, ...(!written && { reason: report.result }) }, 'refresh failed; the last good extraction stays');
        // Written already by this attempt, its reply lost: an unchanged refresh has no news to send again.
        if (report.result === 'repeated') return { status: 'ready' };
        if (report.result !== 'ok') return { status: 'skipped', reason: report.result };
        return { status: 'ready' };
      }
      const error = { code: failure.code, message: failure.message };
      const outcome = { status: 'failed' as const, error, keepBlob: KEEP_BYTES_FOR.has(failure.code) };
      const report = await deps.kbs.finishSourceReport(ref, outcome, { now: new Date().toISOString(), claim });
      const res = report.result;
      const seconds = (performance.now() - started) / 1000;
      if (res === 'ok' || res === 'repeated') {
        // At warn: a source that ended failed is what an operator looks for first, and not a fault of the service (those are at error).
        log.warn({ result: 'failed', code: failure.code, seconds, ...(res === 'repeated' && { repeated: true }) }, 'source failed');
        deps.onOutcome?.({ type: source.type, status: 'failed', code: failure.code, seconds });
      } else {
        log.info({ result: 'not_written', reason: res, code: failure.code, seconds }, 'result not written; the source has moved on');
      }
      throw new UnrecoverableError(`${failure.code}: ${failure.message}`);
    } finally {
      await late?.release();
    }
  }
}

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

/**
 * For a URL source this run will fetch, a slot of its host (after the same
 * URL check the fetch makes; a URL the check refuses is refused by the fetch
 * without a slot). Undefined for other sources or when there is nothing to do.
 */
async function takeHostSlot(deps: ProcessorDeps, source: StoredSource | null, run: number): Promise<HostLease | undefined> {
  if (!deps.hosts) return undefined;
  if (!source || source.type !== 'url' || source.run !== run) return undefined;
  if (!isActiveStatus(source.status)) return undefined;
  const checked = checkSourceUrl(source.content, { allowPrivate: privateAccess(deps.config) });
  return checked.ok ? deps.hosts.acquire(hostKey(new URL(checked.url))) : undefined;
}

/** Puts the job back in the queue for later without spending an attempt (BullMQ's DelayedError). */
async function handBack(job: Job, token: string | undefined, err: HostBusyError, log: Logger): Promise<never> {
  log.debug({ host: err.host, delayMs: err.delayMs }, 'host busy; job delayed');
  await job.moveToDelayed(Date.now() + err.delayMs, token);
  throw new DelayedError();
}

/** Progress is written to the source at most this often. */
const PROGRESS_WRITE_MS = 1000;

/**
 * Writes an extraction's progress to its source: the first report at once,
 * then at most once a second. A failed write is dropped; the next one, or
 * the result, makes up for it.
 */
function progressWriter(deps: ProcessorDeps, ref: SourceRef, claim: string): (progress: SourceProgress) => void {
  let writtenAt = 0;
  return (progress) => {
    const now = Date.now();
    if (now - writtenAt < PROGRESS_WRITE_MS) return;
    writtenAt = now;
    deps.kbs.setProgress(ref, progress, claim).catch(() => undefined);
  };
}
