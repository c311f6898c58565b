import { encodeCursor } from '../feed/cursor.js';
import type { WebhookEvent, WebhookEventType } from '../schemas/webhook.js';
import { countsFrom } from '../sources/lifecycle.js';
import type { OutboxEntry } from '../store/outbox.js';
import { eventIdOfKey } from './webhook-events.js';

/** The events an outbox entry may hold (see the outbox Lua include). */
const OUTBOX_TYPES = new Set<string>(['source.ready', 'source.failed', 'knowledge_base.settled', 'knowledge_base.changed', 'site.discovered']);

/**
 * The webhook event an outbox entry tells of, its id derived from the entry's
 * key as {@link eventIdOfKey} derives every event id, so relaying the same
 * entry twice gives the same event and queues the same delivery jobs.
 * Undefined for an entry that is not an event of the contract (written by a
 * later version, or damaged): the relay drops it.
 */
export function eventOfEntry(entry: OutboxEntry): WebhookEvent | undefined {
  if (!OUTBOX_TYPES.has(entry.type) || !entry.key || !entry.createdAt) return undefined;
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(entry.data) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const kbId = entry.key.split('/')[0]!;
  const head = { id: eventIdOfKey(entry.key), type: entry.type as WebhookEventType, createdAt: entry.createdAt };
  switch (entry.type) {
    case 'knowledge_base.changed': {
      if (typeof raw.from !== 'string' || typeof raw.to !== 'string') return undefined;
      return { ...head, data: { kbId, afterCursor: encodeCursor(raw.from, kbId), toCursor: encodeCursor(raw.to, kbId) } };
    }
    case 'knowledge_base.settled': {
      if (!Array.isArray(raw.counts)) return undefined;
      return { ...head, data: { kbId, sourceCounts: countsFrom(raw.counts as (string | number)[]) } };
    }
    default:
      return { ...head, data: raw as WebhookEvent['data'] };
  }
}
