import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuePrefix, WEBHOOK_QUEUE } from '../../shared/queue/jobs.js';
import { createRedis } from '../../shared/redis/redis.js';
import { createLogger } from '../../shared/runtime/logger.js';
import type { OutboxStore } from '../../shared/store/outbox.js';
import { eventId, eventOutlet } from '../../shared/webhooks/webhook-events.js';
import { relayOnce, type RelayDeps } from '../../worker/webhooks/relay.js';
import { readySource } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { outboxEvents } from '../helpers/outbox.js';
import { createKbWith } from '../helpers/worker-harness.js';

// No worker runs in this file: the relay is driven by hand, pass by pass.
let h: Harness;
let hooks: Queue;
let relay: RelayDeps;

beforeAll(async () => {
  h = await createHarness();
  hooks = new Queue(WEBHOOK_QUEUE, { connection: createRedis(h.config, 'api'), prefix: queuePrefix(h.prefix) });
  relay = { outbox: h.store.outbox, outlet: eventOutlet(h.store.webhooks, hooks), logger: createLogger('silent') };
});
afterAll(async () => {
  await hooks.close();
  await h.close();
});

const texts = (items: string[]) => (f: FormData) => f.set('knowledge_base_texts', JSON.stringify(items));
/** A webhook on loopback (never contacted: no delivery worker runs). */
const subscribe = (workspaceId: string, events: string[]) =>
  h.store.webhooks.create(workspaceId, { url: 'http://127.0.0.1:9/hook', events: events as never }, 20, new Date().toISOString());
const jobIds = async () => (await hooks.getJobs(['prioritized', 'wait', 'delayed'], 0, -1)).map((j) => j.id!).sort();

describe('the outbox', () => {
  it("holds a finish's events, written by its script, with the ids derived as ever", async () => {
    const ws = 'ws_outbox_finish';
    const { kbId, docs } = await createKbWith(h, await h.key(ws), texts(['one']));
    await readySource(h, kbId, docs[0]!, 'one');
    const events = await outboxEvents(h.store, kbId);
    expect(events.map((e) => [e.type, e.id])).toEqual([
      ['source.ready', eventId(kbId, docs[0]!, 1, 'source.ready')],
      ['knowledge_base.settled', eventId(kbId, 'settled', 1)],
    ]);
    expect(events[1]!.data).toEqual({ kbId, sourceCounts: { pending: 0, processing: 0, ready: 1, failed: 0 } });
    expect((await h.store.outbox.info(kbId)).bytes).toBeGreaterThan(0);
  });

  it('holds one set of events when a finish is sent again after its reply was lost (the same attempt)', async () => {
    const { kbId, docs } = await createKbWith(h, await h.key('ws_outbox_lost'), texts(['lost reply']));
    const ref = { kbId, documentId: docs[0]!, run: 1 };
    const now = new Date().toISOString();
    expect((await h.store.kbs.startSourceReport(ref, { now, claim: 'lock-1' })).result).toBe('ok');
    const outcome = { status: 'ready' as const, text: 'lost reply', truncated: false };
    expect((await h.store.kbs.finishSourceReport(ref, outcome, { now, claim: 'lock-1' })).result).toBe('ok');
    expect((await h.store.kbs.finishSourceReport(ref, outcome, { now, claim: 'lock-1' })).result).toBe('repeated');
    const types = (await outboxEvents(h.store, kbId)).map((e) => e.type);
    expect(types.filter((t) => t === 'source.ready')).toHaveLength(1);
    expect(types.filter((t) => t === 'knowledge_base.settled')).toHaveLength(1);
  });

  it('does not tell an unchanged refresh, nor its settle when the counts are those told last', async () => {
    const { kbId, docs } = await createKbWith(h, await h.key('ws_outbox_same'), texts(['same']));
    await readySource(h, kbId, docs[0]!, 'same');
    const told = (await outboxEvents(h.store, kbId)).length;
    const ref = { kbId, documentId: docs[0]!, run: 2 };
    // A refresh run of the ready source that finds the content unchanged.
    await h.redis.hset(h.store.keys.source(kbId, docs[0]!), 'run', '2', 'status', 'pending');
    await h.redis.hincrby(h.store.keys.kb(kbId), 'n:ready', -1);
    await h.redis.hincrby(h.store.keys.kb(kbId), 'n:pending', 1);
    const now = new Date().toISOString();
    expect((await h.store.kbs.startSourceReport(ref, { now })).result).toBe('ok');
    expect((await h.store.kbs.finishSourceReport(ref, { status: 'ready', text: 'same', truncated: false, unchanged: true }, { now })).result).toBe('ok');
    expect((await outboxEvents(h.store, kbId)).length, 'no source.ready, no settle with the same counts').toBe(told);
  });
});

describe('the relay', () => {
  it('queues each subscribed event once, drops the others, empties the outbox and leaves the index', async () => {
    const ws = 'ws_relay_once';
    await subscribe(ws, ['source.ready']);
    const { kbId, docs } = await createKbWith(h, await h.key(ws), texts(['a', 'b']));
    for (const d of docs) await readySource(h, kbId, d, d);
    const before = await jobIds();
    await relayOnce(relay);
    const queued = (await jobIds()).filter((id) => !before.includes(id));
    // Two source.ready subscribed; the settle and the changes are not, so they are neither kept nor queued.
    expect(queued).toHaveLength(2);
    expect(await h.store.webhooks.getEvent(ws, eventId(kbId, docs[0]!, 1, 'source.ready'))).not.toBeNull();
    expect(await h.store.webhooks.getEvent(ws, eventId(kbId, 'settled', 1))).toBeNull();
    expect(await outboxEvents(h.store, kbId)).toEqual([]);
    expect((await h.store.outbox.info(kbId)).bytes).toBe(0);
    expect((await h.store.outbox.marked(10_000)).map((m) => m.kbId)).not.toContain(kbId);
  });

  it('queues nothing twice when a relay stopped after queueing and before deleting, and another relays the same entries', async () => {
    const ws = 'ws_relay_crash';
    await subscribe(ws, ['source.ready', 'knowledge_base.settled']);
    const { kbId, docs } = await createKbWith(h, await h.key(ws), texts(['crash']));
    await readySource(h, kbId, docs[0]!, 'crash');
    const before = await jobIds();
    // The first relay dies after queueing the deliveries, before its delete reaches Redis.
    const dying: OutboxStore = Object.create(h.store.outbox) as OutboxStore;
    dying.ack = async () => {
      throw new Error('connection lost');
    };
    await relayOnce({ ...relay, outbox: dying });
    const first = (await jobIds()).filter((id) => !before.includes(id));
    expect(first).toHaveLength(2);
    expect((await outboxEvents(h.store, kbId)).length, 'the entries stay for the next relay').toBeGreaterThan(0);
    await relayOnce(relay);
    expect((await jobIds()).filter((id) => !before.includes(id))).toEqual(first);
    expect(await outboxEvents(h.store, kbId)).toEqual([]);
  });

  it('keeps a knowledge base in the index when a script was marked after the relay read its score', async () => {
    const { kbId, docs } = await createKbWith(h, await h.key('ws_relay_race'), texts(['race']));
    await readySource(h, kbId, docs[0]!, 'race');
    const mark = (await h.store.outbox.marked(10_000)).find((m) => m.kbId === kbId)!;
    expect(mark).toBeDefined();
    await h.store.outbox.mark(kbId);
    expect(await h.store.outbox.unmark(kbId, mark.score)).toBe(false);
    const again = (await h.store.outbox.marked(10_000)).find((m) => m.kbId === kbId)!;
    expect(await h.store.outbox.unmark(kbId, again.score)).toBe(true);
  });

  it("relays a deleted knowledge base's last event", async () => {
    const ws = 'ws_relay_deleted';
    await subscribe(ws, ['knowledge_base.changed']);
    const key = await h.key(ws);
    const { kbId, docs } = await createKbWith(h, key, texts(['gone soon']));
    await readySource(h, kbId, docs[0]!, 'gone soon');
    await relayOnce(relay);
    await h.store.kbs.delete(ws, kbId);
    const [deleted] = await outboxEvents(h.store, kbId);
    expect(deleted?.type).toBe('knowledge_base.changed');
    await relayOnce(relay);
    expect(await h.store.webhooks.getEvent(ws, deleted!.id)).not.toBeNull();
    expect(await h.redis.exists(h.store.keys.outbox(kbId))).toBe(0);
  });
});
