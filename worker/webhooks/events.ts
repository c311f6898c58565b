import type { Queue } from 'bullmq';
import type { Logger } from '../../shared/runtime/logger.js';
import { changedEvent, eventId, eventOutlet, publishEvents, settledEvent } from '../../shared/webhooks/webhook-events.js';
import type { SourceCounts } from '../../shared/schemas/knowledge-base.js';
import type { WebhookEvent } from '../../shared/schemas/webhook.js';
import type { SourceErrorCode } from '../../shared/source-errors.js';
import type { FinishReport, KbStore } from '../../shared/store/kb-store.js';
import type { StoredWebhook, WebhookStore } from '../../shared/store/webhook-store.js';
import type { SourceRef } from '../../shared/sources/source-ref.js';
import type { SiteOutcome } from '../../shared/store/site-records.js';
import type { SiteFinish } from '../../shared/store/site-store.js';
import type { SettleReport } from '../../shared/store/settle-report.js';

/** A source that has just ended, as the processor knows it. */
export interface FinishedSource extends SourceRef {
  workspaceId: string;
  status: 'ready' | 'failed';
  error?: { code: SourceErrorCode; message: string };
  /** A refresh of a ready source that kept its extraction (the page was the same, or could not be fetched). */
  unchanged?: boolean;
}

/** What the processor calls to emit completion events. Never throws: ingestion does not wait on webhooks. */
export interface SourceEvents {
  /**
   * After a finish that wrote: `source.ready`/`source.failed`, and `knowledge_base.settled` when it settled the knowledge base.
   * `hooks`, from {@link SourceEvents.readHooks} started beside the finish, saves the read of the workspace's webhooks after it.
   */
  finished(source: FinishedSource, report: FinishReport, hooks?: WebhookRead): Promise<void>;
  /**
   * Starts reading the workspace's active webhooks, to send beside a finish
   * (one round trip for both). Never rejects: a failed read resolves
   * undefined, and the events read them again.
   */
  readHooks?(workspaceId: string): WebhookRead;
  /**
   * For a job that finds its own run already finished: the worker may have
   * stopped between the finish and the events, so they are emitted again
   * under the same ids, which adds nothing when they were already queued.
   */
  replay(workspaceId: string, ref: SourceRef): Promise<void>;
  /** After a site's discovery ended: `site.discovered` with its counts, and `knowledge_base.settled` when it settled the knowledge base. */
  siteDiscovered?(site: DiscoveredSite, outcome: SiteOutcome, finish: SiteFinish): Promise<void>;
  /** After other work wrote to a knowledge base's change feed (a re-chunk): `knowledge_base.changed` with the range. */
  changed?(workspaceId: string, kbId: string, changes: { from: string; to: string }): Promise<void>;
  /**
   * `knowledge_base.settled` for a change that settled a knowledge base
   * without a source ending: a delete of its last source in flight, or the
   * reconciler's repair or recount after a torn write. Nothing without a settle number.
   */
  settled?(workspaceId: string, kbId: string, settle: SettleReport): Promise<void>;
}

/** The workspace's active webhooks, read ahead; undefined when the read failed. */
export type WebhookRead = Promise<StoredWebhook[] | undefined>;

/** A site whose discovery run has just ended. */
export interface DiscoveredSite {
  workspaceId: string;
  kbId: string;
  siteId: string;
  run: number;
}

/** The events the end of a site's discovery gives rise to. */
export function siteEvents(site: DiscoveredSite, outcome: SiteOutcome, finish: SiteFinish, now: string): WebhookEvent[] {
  if (finish.kind !== 'ok') return [];
  const { kbId, siteId, run } = site;
  const data: WebhookEvent['data'] = { kbId, siteId, status: outcome.state, pagesFound: outcome.pagesFound, pagesAdded: outcome.pagesAdded, truncated: outcome.truncated };
  if (outcome.truncatedReason) data.truncatedReason = outcome.truncatedReason;
  if (outcome.warnings?.length) data.warnings = outcome.warnings;
  if (outcome.error) data.error = outcome.error;
  const events: WebhookEvent[] = [{ id: eventId(kbId, siteId, run, 'site.discovered'), type: 'site.discovered', createdAt: now, data }];
  if (finish.settledSeq !== undefined) {
    events.push(settledEvent(kbId, finish.settledSeq, finish.sourceCounts, now));
  }
  return events;
}

export interface SourceEventsDeps {
  kbs: KbStore;
  webhooks: WebhookStore;
  queue: Queue;
  logger: Logger;
  /** The retry schedule the queue's jobs carry (tests shorten it). */
  retryDelaysMs?: readonly number[];
}

// Built in shared/ so that the API's writes (deletes, metadata) give their events the same ids.
export { changedEvent, eventId, settledEvent };

/** The events one finish gives rise to. */
export function finishEvents(source: FinishedSource, sourceCounts: SourceCounts | undefined, settledSeq: number | undefined, now: string): WebhookEvent[] {
  const { kbId, documentId, run, status } = source;
  const type = status === 'ready' ? 'source.ready' : 'source.failed';
  const data: WebhookEvent['data'] = { kbId, documentId, status };
  if (status === 'failed' && source.error) data.error = { code: source.error.code, message: source.error.message };
  const events: WebhookEvent[] = [{ id: eventId(kbId, documentId, run, type), type, createdAt: now, data }];
  if (settledSeq !== undefined && sourceCounts) {
    events.push(settledEvent(kbId, settledSeq, sourceCounts, now));
  }
  return events;
}

/** Builds the emitter the processor uses. */
export function createSourceEvents(deps: SourceEventsDeps): SourceEvents {
  // Deliveries take turns between workspaces as extraction does: one tenant's backlog of slow receivers waits its turn.
  const outlet = eventOutlet(deps.webhooks, deps.queue, deps.retryDelaysMs);
  const emit = (workspaceId: string, events: WebhookEvent[], hooks?: WebhookRead): Promise<void> => publishEvents(outlet, workspaceId, events, hooks);

  /**
   * An unchanged refresh has no news: no `source.ready`, and
   * `knowledge_base.settled` only when the counts differ from those of the
   * settle before it (or that one is not at hand), so a client sees
   * each real change of the knowledge base's state once.
   */
  async function unchangedEvents(source: FinishedSource, report: FinishReport): Promise<WebhookEvent[]> {
    const { settledSeq, sourceCounts } = report;
    if (settledSeq === undefined || !sourceCounts) return [];
    const previous = await deps.webhooks.getEvent(source.workspaceId, eventId(source.kbId, 'settled', settledSeq - 1));
    const before = previous === null ? undefined : (JSON.parse(previous) as WebhookEvent).data.sourceCounts;
    const settled = finishEvents(source, sourceCounts, settledSeq, new Date().toISOString()).filter((e) => e.type === 'knowledge_base.settled');
    if (before === undefined || JSON.stringify(before) !== JSON.stringify(sourceCounts)) return settled;
    // Not announced, but kept (bounded like every event body) so the next unchanged refresh compares with it.
    for (const event of settled) await deps.webhooks.saveEvent(source.workspaceId, event);
    return [];
  }

  async function guarded(what: string, log: Record<string, unknown>, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (err) {
      deps.logger.warn({ ...log, reason: err instanceof Error ? err.message : String(err) }, `could not emit ${what}`);
    }
  }

  return {
    finished(source, report, hooks) {
      return guarded('completion events', { kbId: source.kbId, documentId: source.documentId }, async () =>
        emit(
          source.workspaceId,
          [
            ...(source.unchanged ? await unchangedEvents(source, report) : finishEvents(source, report.sourceCounts, report.settledSeq, new Date().toISOString())),
            ...(report.changes ? [changedEvent(source.kbId, report.changes, new Date().toISOString())] : []),
          ],
          hooks,
        ),
      );
    },
    readHooks(workspaceId) {
      return deps.webhooks.active(workspaceId).catch(() => undefined);
    },
    changed(workspaceId, kbId, changes) {
      return guarded('the change event', { kbId }, () => emit(workspaceId, [changedEvent(kbId, changes, new Date().toISOString())]));
    },
    settled(workspaceId, kbId, { settledSeq, sourceCounts }) {
      if (settledSeq === undefined) return Promise.resolve();
      return guarded('the settled event', { kbId }, () => emit(workspaceId, [settledEvent(kbId, settledSeq, sourceCounts, new Date().toISOString())]));
    },
    siteDiscovered(site, outcome, finish) {
      return guarded('site events', { kbId: site.kbId, siteId: site.siteId }, () => emit(site.workspaceId, siteEvents(site, outcome, finish, new Date().toISOString())));
    },
    replay(workspaceId, { kbId, documentId, run }) {
      return guarded('completion events again', { kbId, documentId }, async () => {
        const [source, meta, settledSeq] = await Promise.all([deps.kbs.getSource(kbId, documentId), deps.kbs.getMeta(kbId), deps.kbs.settledBy(kbId, documentId)]);
        // Only these ends have events in the webhook contract (source.ready, source.failed).
        if (!source || !meta || source.run !== run || (source.status !== 'ready' && source.status !== 'failed')) return;
        const finished: FinishedSource = { workspaceId, kbId, documentId, run, status: source.status };
        if (source.error) finished.error = source.error;
        await emit(workspaceId, finishEvents(finished, meta.sourceCounts, settledSeq, new Date().toISOString()));
      });
    },
  };
}
