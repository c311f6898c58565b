import { createHash } from 'node:crypto';
import type { Queue } from 'bullmq';
import { FairShare } from '../queue/fair-share.js';
import { encodeCursor, type FeedRange } from '../feed/cursor.js';
import type { SourceCounts } from '../schemas/knowledge-base.js';
import type { WebhookEvent, WebhookEventType } from '../schemas/webhook.js';
import type { StoredWebhook, WebhookStore } from '../store/webhook-store.js';
import { enqueueDeliveries } from './webhook-deliveries.js';

/**
 * Event ids are derived from what the event is about (a source's run, a
 * knowledge base's settle number, a change feed range), so the same
 * transition always yields the same id and the same delivery job ids:
 * emitting twice queues once.
 */
export function eventId(...parts: (string | number)[]): string {
  return eventIdOfKey(parts.join('/'));
}

/** {@link eventId} of parts already joined with '/' (the `k` an outbox entry keeps). */
export function eventIdOfKey(key: string): string {
  return `evt_${createHash('sha256').update(key).digest('base64url').slice(0, 32)}`;
}

/** `knowledge_base.changed` for a write to the change feed, its id derived from the range it wrote. */
export function changedEvent(kbId: string, changes: FeedRange, now: string): WebhookEvent {
  const data = { kbId, afterCursor: encodeCursor(changes.from, kbId), toCursor: encodeCursor(changes.to, kbId) };
  return { id: eventId(kbId, 'changed', changes.to), type: 'knowledge_base.changed', createdAt: now, data };
}

/** The `knowledge_base.settled` event of one settle, its id derived from the settle number. */
export function settledEvent(kbId: string, settledSeq: number, sourceCounts: SourceCounts, now: string): WebhookEvent {
  return { id: eventId(kbId, 'settled', settledSeq), type: 'knowledge_base.settled', createdAt: now, data: { kbId, sourceCounts } };
}

/** Where events go: the workspace's webhooks and the delivery queue. */
export interface EventOutlet {
  webhooks: WebhookStore;
  queue: Queue;
  /** Gives deliveries their turn between workspaces; one per queue. */
  fair: FairShare;
  /** The retry schedule the queue's jobs carry (tests shorten it). */
  retryDelaysMs?: readonly number[] | undefined;
}

/** An outlet on `queue`, with its own fair-share ledger client. */
export function eventOutlet(webhooks: WebhookStore, queue: Queue, retryDelaysMs?: readonly number[]): EventOutlet {
  return { webhooks, queue, fair: new FairShare(queue), retryDelaysMs };
}

/**
 * Stores each event that a webhook of the workspace subscribes to and queues
 * its deliveries; an event nobody subscribes to is neither kept nor queued.
 * `prefetched`, the workspace's active webhooks read by the caller (undefined
 * when that read failed: they are read again).
 */
export async function publishEvents(outlet: EventOutlet, workspaceId: string, events: WebhookEvent[], prefetched?: Promise<StoredWebhook[] | undefined>): Promise<void> {
  if (events.length === 0) return;
  // One read of the workspace's webhooks serves every event of the transition (a ready source has two);
  // a caller may have started it beside the write the events are about.
  const active = (await prefetched) ?? (await outlet.webhooks.active(workspaceId));
  for (const event of events) {
    const hooks = active.filter((h) => h.events.includes(event.type as WebhookEventType));
    if (hooks.length === 0) continue;
    // The body first: a delivery job never runs without the bytes it signs.
    await outlet.webhooks.saveEvent(workspaceId, event);
    const batch = { workspaceId, eventId: event.id, type: event.type, webhookIds: hooks.map((h) => h.webhookId) };
    await enqueueDeliveries(outlet.queue, { ...batch, ...(outlet.retryDelaysMs && { retryDelaysMs: outlet.retryDelaysMs }) }, outlet.fair);
  }
}
