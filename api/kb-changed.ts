import type { FeedRange } from '../shared/feed/cursor.js';
import type { SettleReport } from '../shared/store/settle-report.js';
import { changedEvent, eventOutlet, publishEvents, settledEvent } from '../shared/webhook-events.js';
import type { AppDeps } from './deps.js';

/** Announces a change feed range the API wrote; resolves once it is queued (or could not be). */
export type AnnounceChanges = (workspaceId: string, kbId: string, changes: FeedRange | undefined) => Promise<void>;

/**
 * `knowledge_base.changed` for the feed events a request wrote (a delete of a
 * source, a site or the knowledge base, a metadata change), stored and queued on the webhook queue as
 * the worker does for its writes, so the same delivery workers send it. The
 * write has happened whatever becomes of the event: a failure to queue it
 * is logged, and the feed still holds the events for a consumer that polls.
 */
export function announceChanges(deps: AppDeps): AnnounceChanges {
  const outlet = deps.webhookQueue && eventOutlet(deps.store.webhooks, deps.webhookQueue);
  return async (workspaceId, kbId, changes) => {
    if (!outlet || !changes) return;
    try {
      await publishEvents(outlet, workspaceId, [changedEvent(kbId, changes, new Date().toISOString())]);
    } catch (err) {
      deps.logger.warn({ kbId, reason: err instanceof Error ? err.message : String(err) }, 'could not emit the change event');
    }
  };
}

/** Announces that a request settled a knowledge base (a delete of its last source in flight). */
export type AnnounceSettled = (workspaceId: string, kbId: string, settle: SettleReport) => Promise<void>;

/**
 * `knowledge_base.settled` for a request that settled a knowledge base without
 * a source ending, queued like {@link announceChanges}; nothing when the
 * change did not settle it (no settle number).
 */
export function announceSettled(deps: AppDeps): AnnounceSettled {
  const outlet = deps.webhookQueue && eventOutlet(deps.store.webhooks, deps.webhookQueue);
  return async (workspaceId, kbId, { settledSeq, sourceCounts }) => {
    if (!outlet || settledSeq === undefined) return;
    try {
      await publishEvents(outlet, workspaceId, [settledEvent(kbId, settledSeq, sourceCounts, new Date().toISOString())]);
    } catch (err) {
      deps.logger.warn({ kbId, reason: err instanceof Error ? err.message : String(err) }, 'could not emit the settled event');
    }
  };
}
