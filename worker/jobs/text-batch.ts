import { UnrecoverableError } from 'bullmq';
import { chunkingTag, effectiveChunking } from '../../shared/chunking/chunk-settings.js';
import { textBatchJobSchema } from '../../shared/queue/jobs.js';
import { SourceError, isSourceError } from '../../shared/source-errors.js';
import type { SourceOutcome } from '../../shared/store/kb-records.js';
import type { BatchedOutcome } from '../../shared/store/source-transitions.js';
import { rechunkIfChanged } from './extract-source.js';
import { textOutcome } from './ingest-source.js';
import { sourceLogFields } from './source-log.js';
import type { JobHandler } from './job-context.js';

/**
 * A batch of text sources of one knowledge base. One script claims them
 * all for this attempt, each is cut into chunks here (a text is at most a
 * few hundred kilobytes, cut in microseconds), and scripts of a bounded
 * share of the batch write their outcomes back, each as a job of its own
 * would (record, chunks, feed and outbox events), with one settle and one
 * `knowledge_base.changed` a script. A permanent failure (an empty text)
 * ends its source only. A transient one (Redis unavailable) fails the
 * attempt: the next claims again and skips the sources already ended, and
 * after the last, the reconciler ends those still processing `failed`.
 * The job fails only when no source of it ended ready or was skipped.
 */
export const textBatchJob: JobHandler = async (ctx) => {
  const { job, token, deps, chunkDefaults } = ctx;
  const parsed = textBatchJobSchema.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError('invalid job data');
  const { workspaceId, kbId, sources } = parsed.data;
  const started = performance.now();
  const log = deps.logger.child({ jobId: job.id, kbId, attempt: job.attemptsMade + 1 });
  const claim = token ?? '';
  const start = await deps.kbs.startTexts(kbId, sources, { now: new Date().toISOString(), claim, workspaceId });
  if (start.result !== 'ok') {
    log.info({ result: 'skipped', reason: start.result }, 'nothing to do');
    return { status: 'skipped', reason: start.result };
  }
  const chunking = effectiveChunking(start.chunking, chunkDefaults);
  const counts = { ready: 0, failed: 0, skipped: 0 };
  const ended: BatchedOutcome[] = [];
  // What each line about a text says of it beside its ids: its type and title (never its content).
  const named: ReturnType<typeof sourceLogFields>[] = [];
  start.claims.forEach((claimed, i) => {
    const { documentId, run } = sources[i]!;
    if (claimed.result !== 'ok' || !claimed.source) {
      counts.skipped += 1;
      log.debug({ documentId, run, result: 'skipped', reason: claimed.result }, 'nothing to do');
      return;
    }
    let outcome: SourceOutcome;
    try {
      // The API groups texts only; a batch naming another source (added by hand) fails that source.
      if (claimed.source.type !== 'text') throw new SourceError('internal', 'Only text sources run in a batch of texts; retry the source');
      outcome = textOutcome(deps, claimed.source, chunking);
    } catch (err) {
      if (!isSourceError(err)) log.error({ err, documentId }, 'unexpected processing error');
      const failure = isSourceError(err) ? err : new SourceError('internal', 'Processing failed unexpectedly; it can be retried', true);
      outcome = { status: 'failed', error: { code: failure.code, message: failure.message }, keepBlob: false };
    }
    ended.push({ documentId, run, outcome });
    named.push(sourceLogFields(claimed.source));
  });
  const reports = await deps.kbs.finishTexts(kbId, ended, { now: new Date().toISOString(), claim });
  const seconds = (performance.now() - started) / 1000;
  let written: (typeof reports)[number] | undefined;
  reports.forEach((report, i) => {
    const { documentId, run, outcome } = ended[i]!;
    const which = { documentId, run, ...named[i] };
    if (report.result !== 'ok' && report.result !== 'repeated') {
      // Another attempt finished or holds the source: this result is not written.
      counts.skipped += 1;
      log.debug({ ...which, result: 'not_written', reason: report.result }, 'result not written; the source has moved on');
      return;
    }
    if (report.result === 'ok') written ??= report;
    const repeated = report.result === 'repeated' && { repeated: true };
    if (outcome.status === 'ready') {
      counts.ready += 1;
      log.debug({ ...which, result: 'ready', chars: outcome.text.length, ...repeated }, 'source ready');
      deps.onOutcome?.({ type: 'text', status: 'ready', mimeType: outcome.mimeType, bytes: outcome.sizeBytes, seconds });
    } else {
      counts.failed += 1;
      log.warn({ ...which, result: 'failed', code: outcome.error.code, ...repeated }, 'source failed');
      deps.onOutcome?.({ type: 'text', status: 'failed', code: outcome.error.code, seconds });
    }
  });
  // The settings may have changed since the claim: a re-chunk then covers these texts too.
  if (written) await rechunkIfChanged(ctx, workspaceId, kbId, chunkingTag(chunking), written.chunking, log);
  const reason = `${counts.ready} ready, ${counts.failed} failed, ${counts.skipped} skipped of ${sources.length} texts`;
  log.info({ ...counts, seconds }, 'batch of texts done');
  if (counts.failed === sources.length) throw new UnrecoverableError(reason);
  return { status: 'ready', reason };
};
