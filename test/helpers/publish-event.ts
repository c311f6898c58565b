import type { Queue } from 'bullmq';
import type { WebhookStore } from '../../shared/store/webhook-store.js';
import { eventId, eventOutlet, publishEvents } from '../../shared/webhooks/webhook-events.js';

/**
 * Publishes a `source.ready` of run 1 straight onto the delivery queue, as the
 * relay does for an outbox entry: for tests of delivery, which need an event
 * but not the extraction that would write it.
 */
export function sourceReadyPublisher(webhooks: WebhookStore, queue: Queue, retryDelaysMs?: readonly number[]) {
  const outlet = eventOutlet(webhooks, queue, retryDelaysMs);
  return (workspaceId: string, documentId: string): Promise<void> => {
    const kbId = `kb_${workspaceId}`;
    const event = { id: eventId(kbId, documentId, 1, 'source.ready'), type: 'source.ready' as const, createdAt: new Date().toISOString(), data: { kbId, documentId, status: 'ready' as const } };
    return publishEvents(outlet, workspaceId, [event]);
  };
}
