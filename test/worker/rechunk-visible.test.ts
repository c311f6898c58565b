import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventId } from '../../shared/webhook-events.js';
import { call } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';
import { createKbWith, startTestWorker } from '../helpers/worker-harness.js';

const WS = 'ws-rechunk-visible';
let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness({ URL_FETCH_ALLOW_PRIVATE: 'true' });
  key = await h.key(WS);
});
afterAll(async () => h.close());

const note = (n: number) => `# Note ${n}\n\n${`Entry ${n} of the ledger is written out here in plain words. `.repeat(60)}`;
const kb = async (kbId: string) => (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).body;

describe('a re-chunk of a knowledge base', () => {
  it('shows on the knowledge base while it runs, and ends with knowledge_base.settled', async () => {
    const hook = await call(h.app, 'POST', '/v1/webhooks', {
      key,
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', events: ['knowledge_base.settled'] }),
      headers: { 'content-type': 'application/json' },
    });
    expect(hook.status, hook.text).toBe(201);
    let worker = await startTestWorker(h);
    const { kbId } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify([note(1), note(2)])));
    await waitFor('the knowledge base to settle', async () => (await kb(kbId)).status === 'ready');
    await worker.close();
    expect((await kb(kbId)).rechunkingSources).toBeUndefined();
    const settles = Number(await h.redis.hget(h.store.keys.kb(kbId), 'settles'));

    // No worker: the re-chunk is queued and waits, and the knowledge base says so.
    const form = new FormData();
    form.set('chunk_max_tokens', '64');
    expect((await call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}`, { key, body: form })).status).toBe(200);
    expect(await kb(kbId)).toMatchObject({ status: 'ready', chunkMaxTokens: 64, rechunkingSources: 2 });

    worker = await startTestWorker(h);
    try {
      await waitFor('the re-chunk to end', async () => (await kb(kbId)).rechunkingSources === undefined);
      const event = await waitFor('the settled event', async () => (await h.store.webhooks.getEvent(WS, eventId(kbId, 'settled', settles + 1))) ?? undefined);
      expect(JSON.parse(event)).toMatchObject({ type: 'knowledge_base.settled', data: { kbId, sourceCounts: { ready: 2, pending: 0, processing: 0, failed: 0 } } });
    } finally {
      await worker.close();
    }
  }, 60_000);
});
