import type { FeedRange } from '../shared/feed/cursor.js';
import type { WebhookEvent } from '../shared/schemas/webhook.js';
import type { SettleReport } from '../shared/store/settle-report.js';
import { changedEvent, eventOutlet, publishEvents, settledEvent } from '../shared/webhooks/webhook-events.js';
import type { AppDeps } from './deps.js';

/**
 * Announces what a request wrote: the change feed range, and the settle when
 * it settled the knowledge base (a delete of its last source in flight).
 * Resolves once the events are queued (or could not be).
 */
export type AnnounceChanges = (workspaceId: string, kbId: string, changes: FeedRange | undefined, settle?: SettleReport) => Promise<void>;

/**
 * `knowledge_base.changed` for the feed events a request wrote (a delete of a
 * source, a site or the knowledge base, a metadata change), and
 * `knowledge_base.settled` when the request settled the knowledge base without
 * a source ending, stored and queued on the webhook queue as the worker does
 * for its writes, so the same delivery workers send them. The write has
 * happened whatever becomes of the events: a failure to queue them is logged,
 * and the feed still holds the changes for a consumer that polls.
 */
export function announceChanges(deps: AppDeps): AnnounceChanges {
  const outlet = deps.webhookQueue && eventOutlet(deps.store.webhooks, deps.webhookQueue);
  return async (workspaceId, kbId, changes, settle) => {
    const now = new Date().toISOString();
    const events: WebhookEvent[] = [
      ...(changes ? [changedEvent(kbId, changes, now)] : []),
      ...(settle?.settledSeq !== undefined ? [settledEvent(kbId, settle.settledSeq, settle.sourceCounts, now)] : []),
    ];
    if (!outlet || events.length === 0) return;
    try {
      await publishEvents(outlet, workspaceId, events);
    } catch (err) {
      deps.logger.warn({ kbId, reason: err instanceof Error ? err.message : String(err) }, 'could not emit the events of a change');
    }
  };
}
