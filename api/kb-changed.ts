import type { FeedRange } from '../shared/feed/cursor.js';
import { changedEvent, eventOutlet, publishEvents } from '../shared/webhook-events.js';
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
