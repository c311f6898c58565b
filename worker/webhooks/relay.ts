import type { Logger } from '../../shared/runtime/logger.js';
import type { StoredWebhook } from '../../shared/store/webhook-store.js';
import type { OutboxStore } from '../../shared/store/outbox.js';
import { eventOfEntry } from '../../shared/webhooks/outbox-events.js';
import { publishEvents, type EventOutlet } from '../../shared/webhooks/webhook-events.js';

/** Entries read from one outbox at a time. */
const RELAY_PAGE = 100;
/** Knowledge bases taken from the index per pass. */
const RELAY_KBS_PER_PASS = 200;
/** How often a relay looks at the index, ms: the most an event waits before its deliveries are queued, beside the pass itself. */
export const RELAY_INTERVAL_MS = 200;

export interface RelayDeps {
  outbox: OutboxStore;
  outlet: EventOutlet;
  logger: Logger;
}

/**
 * Queues the deliveries of every event in one knowledge base's outbox, in
 * order, then deletes them from it. Each event is stored and its deliveries
 * queued under ids derived from the event, so two relays that read the same
 * entries (several worker replicas, or a relay that stopped between queueing
 * and deleting) queue each delivery once: at least once to the receiver,
 * never twice. An event nobody subscribes to is dropped, as it always was.
 * Returns how many entries it took out.
 */
export async function relayKb(deps: RelayDeps, kbId: string): Promise<number> {
  let relayed = 0;
  for (;;) {
    const entries = await deps.outbox.read(kbId, RELAY_PAGE);
    if (entries.length === 0) return relayed;
    // One read of a workspace's webhooks serves the page (the entries of one knowledge base share its workspace).
    const hooks = new Map<string, Promise<StoredWebhook[] | undefined>>();
    for (const entry of entries) {
      const event = eventOfEntry(entry);
      if (!event || !entry.workspaceId) {
        deps.logger.warn({ kbId, entryId: entry.id, type: entry.type }, 'outbox entry is not an event; dropped');
        continue;
      }
      if (!hooks.has(entry.workspaceId)) hooks.set(entry.workspaceId, deps.outlet.webhooks.active(entry.workspaceId).catch(() => undefined));
      await publishEvents(deps.outlet, entry.workspaceId, [event], hooks.get(entry.workspaceId));
    }
    await deps.outbox.ack(
      kbId,
      entries.map((e) => e.id),
    );
    relayed += entries.length;
    if (entries.length < RELAY_PAGE) return relayed;
  }
}

/**
 * One pass over the index of knowledge bases whose outbox may hold events:
 * relays each, and drops it from the index unless a script was marked for it
 * since its score was read (that script's events wait for the next pass).
 * A knowledge base another replica is relaying is left to it. Returns the
 * entries relayed.
 */
export async function relayOnce(deps: RelayDeps): Promise<number> {
  let total = 0;
  for (const { kbId, score } of await deps.outbox.marked(RELAY_KBS_PER_PASS)) {
    const lease = await deps.outbox.lease(kbId);
    if (!lease) continue;
    try {
      total += await relayKb(deps, kbId);
      await deps.outbox.unmark(kbId, score);
    } catch (err) {
      // Left in the index: the next pass tries again, and its deliveries get the same ids.
      deps.logger.warn({ kbId, reason: err instanceof Error ? err.message : String(err) }, 'could not relay the outbox');
    } finally {
      await deps.outbox.release(kbId, lease).catch(() => undefined);
    }
  }
  return total;
}

/** A relay running every {@link RELAY_INTERVAL_MS} until stopped. */
export interface RunningRelay {
  /** Stops taking passes and waits for the one under way. */
  stop(): Promise<void>;
}

/** Starts relaying: one pass at a time, each {@link RELAY_INTERVAL_MS} after the last ended. */
export function startRelay(deps: RelayDeps, intervalMs = RELAY_INTERVAL_MS): RunningRelay {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> = Promise.resolve();
  const tick = (): void => {
    pass = relayOnce(deps)
      .then(
        () => undefined,
        (err: unknown) => deps.logger.warn({ reason: err instanceof Error ? err.message : String(err) }, 'outbox relay pass failed'),
      )
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, 0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pass;
    },
  };
}
