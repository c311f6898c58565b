import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { chunkingTag, effectiveChunking, type ChunkSettings } from '../../shared/chunking/chunk-settings.js';
import { extractSourceJobSchema, sourceJobRef, type ExtractSourceJob } from '../../shared/queue/jobs.js';
import type { Logger } from '../../shared/runtime/logger.js';
import type { SourceProgress } from '../../shared/schemas/knowledge-base.js';
import { isActiveStatus } from '../../shared/sources/lifecycle.js';
import type { SourceRef } from '../../shared/sources/source-ref.js';
import { SourceError, isSourceError, type SourceErrorCode } from '../../shared/source-errors.js';
import { checkSourceUrl } from '../../shared/net/url-policy.js';
import { privateAccess } from '../../shared/net/address-policy.js';
import type { StoredSource } from '../../shared/store/kb-records.js';
import { HostBusyError, hostKey, HostLimiterUnavailableError, type HostLease } from '../fetch/host-gate.js';
import { settleLandedPage } from '../sites/site-alias.js';
import { ingestSource } from './ingest-source.js';
import type { JobContext, JobHandler, JobResult, ProcessorDeps } from './job-context.js';
import { isRefreshOfReady, keptAfterFailedRefresh } from './refresh-outcomes.js';
import { sourceLogFields } from './source-log.js';

/**
 * Failures after which a file's staged bytes are kept (for a day at most),
 * because a retry could succeed (ocr_unavailable: once the worker has
 * Tesseract). Any other failure, a limit the file exceeds
 * (too_complex) included, would fail again the same way: its bytes go at once.
 */
const KEEP_BYTES_FOR: ReadonlySet<SourceErrorCode> = new Set(['timeout', 'internal', 'ocr_unavailable']);

/**
 * An extraction job (named after its source's type, or an older
 * `extract-source`): its data parsed first, then the source claimed for this
 * run; a job whose source is gone, finished or re-run under a newer run
 * writes nothing. Permanent failures end the source `failed` at once
 * (UnrecoverableError: no retry); transient ones are thrown for BullMQ to
 * retry with backoff, and end it `failed` on the last attempt.
 *
 * A URL source takes a slot of its host before it is claimed, so one waiting
 * for its host stays `pending`. When the host stays saturated past a brief
 * wait, the job goes back to the queue delayed (`DelayedError`), which is not
 * an attempt; the same happens when a redirect leads to a saturated host.
 */
export const extractSourceJob: JobHandler = async (ctx) => {
  const { job, token, deps } = ctx;
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
    return await runClaimed({ ctx, data: { ...ref, ...(parsed.data.unconditional && { unconditional: true }) }, log, lease });
  } finally {
    await lease?.release();
  }
};

/** One run of a source, as a job or a batch runs it: the data naming it, its log, and a host slot taken before the claim. */
export interface SourceRun {
  ctx: JobContext;
  data: ExtractSourceJob;
  log: Logger;
  lease?: HostLease | undefined;
  /** Set when the source is one of a batch of texts. */
  inBatch?: boolean;
}

/** Claims the source for this attempt, then runs it; a source already moved on is skipped. */
export async function runClaimed(sourceRun: SourceRun): Promise<JobResult> {
  const { ctx, data, log } = sourceRun;
  const { token, deps, chunkDefaults } = ctx;
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
  return runSource({ ...sourceRun, source, chunking: effectiveChunking(start.chunking, chunkDefaults) });
}

/** Extracts (or fetches) a claimed source and ends its run with the outcome: ready, kept after a failed refresh, or failed. */
async function runSource({ ctx, data, log: jobLog, lease, inBatch, source, chunking }: SourceRun & { source: StoredSource; chunking: ChunkSettings }): Promise<JobResult> {
  const { job, token, deps } = ctx;
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
    await rechunkIfChanged(ctx, workspaceId, kbId, outcome.unchanged ? source.chunking : chunkingTag(chunking), report.chunking, log);
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

/**
 * The settings may have changed while this run cut its chunks (or a
 * refresh kept chunks of older ones): the re-chunk of the knowledge base
 * then covers this source too. `kbChunking` is what the finish script
 * found, so no read is needed; a change after it re-chunks every ready
 * source, this one included. A failed enqueue is logged; the next change
 * of the settings covers it.
 */
export async function rechunkIfChanged({ deps, chunkDefaults }: JobContext, workspaceId: string, kbId: string, usedTag: string | undefined, kbChunking: ChunkSettings | undefined, log: Logger): Promise<void> {
  const now = effectiveChunking(kbChunking, chunkDefaults);
  if (usedTag === chunkingTag(now)) return;
  await deps.queue.rechunk({ workspaceId, kbId, ...now }).catch((err: unknown) => log.warn({ err }, 'could not queue a re-chunk'));
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
