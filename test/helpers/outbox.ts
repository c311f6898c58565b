import type { Store } from '../../shared/store/index.js';
import type { WebhookEvent } from '../../shared/schemas/webhook.js';
import { eventOfEntry } from '../../shared/webhooks/outbox-events.js';

/** The events a knowledge base's outbox holds (not yet relayed), as the relay would send them, oldest first. */
export async function outboxEvents(store: Store, kbId: string): Promise<WebhookEvent[]> {
  const entries = await store.outbox.read(kbId, 10_000);
  return entries.map((e) => eventOfEntry(e)).filter((e): e is WebhookEvent => e !== undefined);
}
