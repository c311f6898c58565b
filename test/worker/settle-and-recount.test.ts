import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullSourceQueue } from '../../shared/queue/jobs.js';
import { createLogger } from '../../shared/runtime/logger.js';
import { reconcile } from '../../worker/reconciler.js';
import { eventId } from '../../shared/webhooks/webhook-events.js';
import { outboxEvents } from '../helpers/outbox.js';
import { call, readySource } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';
import { createKbWith, startTestWorker } from '../helpers/worker-harness.js';

const WS = 'ws_settle';
let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness({ URL_FETCH_ALLOW_PRIVATE: 'true' });
  key = await h.key(WS);
});
afterAll(async () => h.close());

const silent = createLogger('silent');
const counts = async (kbId: string) => (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).body.sourceCounts;

/** Reconciler deps (no worker runs here: the events its scripts write stay in the outbox, where the tests read them). */
function deps() {
  return { redis: h.redis, kbs: h.store.kbs, queue: h.queue, sourceQueue: bullSourceQueue(h.queue, 2, 50), logger: silent, processingDeadlineMs: 60_000 };
}

/** The knowledge_base.settled events in a knowledge base's outbox. */
const settledInOutbox = async (kbId: string) => (await outboxEvents(h.store, kbId)).filter((e) => e.type === 'knowledge_base.settled');

const texts = (items: string[]) => (f: FormData) => f.set('knowledge_base_texts', JSON.stringify(items));

/** A webhook of the workspace for knowledge_base.settled, so that its events are recorded (nothing listens on port 9). */
async function subscribeToSettled(): Promise<void> {
  const hook = await call(h.app, 'POST', '/v1/webhooks', {
    key,
    body: JSON.stringify({ url: 'http://127.0.0.1:9/settled', events: ['knowledge_base.settled'] }),
    headers: { 'content-type': 'application/json' },
  });
  expect(hook.status, hook.text).toBe(201);
}

describe('the reconciler recounts a knowledge base whose counters do not add up', () => {
  it('counts sources a torn commit added without their counts, and lists them again as active', async () => {
    const { kbId, docs } = await createKbWith(h, key, texts(['one', 'two', 'three']));
    const k = h.store.keys;
    // What a torn write of the commit leaves: the sources are listed, two of their counts and one index entry are not.
    await h.redis.hincrby(k.kb(kbId), 'n:pending', -2);
    await h.redis.zrem(k.active(kbId), docs[2]!);
    expect(await counts(kbId)).toEqual({ pending: 1, processing: 0, ready: 0, failed: 0 });

    const report = await reconcile(deps());
    expect(report.recounted).toBe(1);
    expect(await counts(kbId)).toEqual({ pending: 3, processing: 0, ready: 0, failed: 0 });
    expect(await h.redis.zscore(k.active(kbId), docs[2]!)).not.toBeNull();
    expect((await reconcile(deps())).recounted, 'a second pass finds the counters right').toBe(0);
  });

  it('settles a knowledge base whose counters showed a source in flight that the recount does not find, sending knowledge_base.settled', async () => {
    const { kbId, docs } = await createKbWith(h, key, texts(['first', 'second']));
    for (const d of docs) await readySource(h, kbId, d, 'done');
    const k = h.store.keys;
    // A delete torn after the source left the list, before its counter did.
    await h.redis.hincrby(k.kb(kbId), 'n:processing', 1);
    await h.redis.zadd(k.activeKbs(), Date.now(), kbId);
    const before = (await settledInOutbox(kbId)).length;
    expect((await reconcile(deps())).recounted).toBe(1);
    expect(await counts(kbId)).toEqual({ pending: 0, processing: 0, ready: 2, failed: 0 });
    const settles = (await settledInOutbox(kbId)).slice(before);
    expect(settles.map((e) => [e.id, e.data])).toEqual([[eventId(kbId, 'settled', 2), { kbId, sourceCounts: { pending: 0, processing: 0, ready: 2, failed: 0 } }]]);
  });

  it('sends knowledge_base.settled after a repair that leaves nothing in flight', async () => {
    const { kbId, docs } = await createKbWith(h, key, texts(['only']));
    await readySource(h, kbId, docs[0]!, 'only');
    const k = h.store.keys;
    // A torn finish: the source ended ready but is still listed active and counted processing.
    await h.redis.zadd(k.active(kbId), Date.now(), docs[0]!);
    await h.redis.hincrby(k.kb(kbId), 'n:ready', -1);
    await h.redis.hincrby(k.kb(kbId), 'n:processing', 1);
    const before = (await settledInOutbox(kbId)).length;
    expect((await reconcile(deps())).repaired).toBe(1);
    const settles = (await settledInOutbox(kbId)).slice(before);
    expect(settles.map((e) => [e.id, e.data])).toEqual([[eventId(kbId, 'settled', 2), { kbId, sourceCounts: { pending: 0, processing: 0, ready: 1, failed: 0 } }]]);
  });
});

describe('deleting the last source in flight', () => {
  it('settles the knowledge base and sends knowledge_base.settled; deleting an ended source does not', async () => {
    await subscribeToSettled();
    const { kbId, docs } = await createKbWith(h, key, texts(['ends ready', 'never runs']));
    await readySource(h, kbId, docs[0]!, 'ready');
    // No worker runs here: the events the scripts wrote wait in the outbox for the relay.
    const settledEvent = async (seq: number) => (await outboxEvents(h.store, kbId)).find((e) => e.id === eventId(kbId, 'settled', seq));
    expect(await settledEvent(1)).toBeUndefined();

    expect((await call(h.app, 'DELETE', `/v1/knowledge-bases/${kbId}/documents/${docs[1]}`, { key })).status).toBe(204);
    const event = await settledEvent(1);
    expect(event).toMatchObject({ type: 'knowledge_base.settled', data: { kbId, sourceCounts: { pending: 0, processing: 0, ready: 1, failed: 0 } } });
    expect((await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).body.status).toBe('ready');

    expect((await call(h.app, 'DELETE', `/v1/knowledge-bases/${kbId}/documents/${docs[0]}`, { key })).status).toBe(204);
    expect(await settledEvent(2), 'an ended source leaves nothing to settle').toBeUndefined();
  });
});

const note = (n: number) => `# Note ${n}\n\n${`Entry ${n} of the ledger is written out here in plain words. `.repeat(60)}`;
const kbView = async (kbId: string) => (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).body;

describe('a re-chunk of a knowledge base', () => {
  it('shows on the knowledge base while it runs, and ends with knowledge_base.settled', async () => {
    await subscribeToSettled();
    let worker = await startTestWorker(h);
    const { kbId } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify([note(1), note(2)])));
    await waitFor('the knowledge base to settle', async () => (await kbView(kbId)).status === 'ready');
    await worker.close();
    expect((await kbView(kbId)).rechunkingSources).toBeUndefined();
    const settles = Number(await h.redis.hget(h.store.keys.kb(kbId), 'settles'));

    // No worker: the re-chunk is queued and waits, and the knowledge base says so.
    const form = new FormData();
    form.set('chunk_max_tokens', '64');
    expect((await call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}`, { key, body: form })).status).toBe(200);
    expect(await kbView(kbId)).toMatchObject({ status: 'ready', chunkMaxTokens: 64, rechunkingSources: 2 });

    worker = await startTestWorker(h);
    try {
      await waitFor('the re-chunk to end', async () => (await kbView(kbId)).rechunkingSources === undefined);
      const event = await waitFor('the settled event', async () => (await h.store.webhooks.getEvent(WS, eventId(kbId, 'settled', settles + 1))) ?? undefined);
      expect(JSON.parse(event)).toMatchObject({ type: 'knowledge_base.settled', data: { kbId, sourceCounts: { ready: 2, pending: 0, processing: 0, failed: 0 } } });
    } finally {
      await worker.close();
    }
  }, 60_000);
});
