import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuePrefix, WEBHOOK_QUEUE } from '../../shared/queue/jobs.js';
import { createLogger } from '../../shared/runtime/logger.js';
import { createRedis } from '../../shared/redis/redis.js';
import { startWorker, type RunningWorker } from '../../worker/main.js';
import { call } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { createKbWith, waitForDocument } from '../helpers/worker-harness.js';

let h: Harness;
let key: string;
let worker: RunningWorker;
let hooks: Queue;
let receiver: Receiver;
let origin: Server;
/** What the origin answers: the page, or a redirect to the metadata address (refused before any connection). */
let answer: { page: string } | 'redirect' = { page: '<html><body><p>Open 9 to 5.</p></body></html>' };

beforeAll(async () => {
  // Loopback origin and receiver; the redirect target is refused by the URL policy before DNS or a socket.
  h = await createHarness({ URL_FETCH_ALLOW_PRIVATE: 'true' });
  key = await h.key('ws-refresh-outcomes');
  receiver = await startReceiver();
  origin = createServer((_req, res) => {
    if (answer === 'redirect') res.writeHead(302, { Location: 'http://169.254.169.254/latest/meta-data/' }).end();
    else res.writeHead(200, { 'Content-Type': 'text/html' }).end(answer.page);
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  worker = await startWorker(h.config, createLogger('silent'), { reconcileIntervalMs: 3_600_000, webhooks: { retryDelaysMs: [20] } });
  hooks = new Queue(WEBHOOK_QUEUE, { connection: createRedis(h.config, 'api'), prefix: queuePrefix(h.prefix) });
});
afterAll(async () => {
  await worker.close();
  await hooks.close();
  await receiver.close();
  origin.close();
  await h.close();
});

const url = (path: string): string => `http://127.0.0.1:${(origin.address() as AddressInfo).port}${path}`;
const refresh = async (kbId: string, documentId: string) => {
  const res = await call(h.app, 'POST', `/v1/knowledge-bases/${kbId}/documents/${documentId}/refresh`, { key });
  expect(res.status, res.text).toBe(202);
};

async function deliveriesDone(): Promise<void> {
  await waitFor('every webhook delivery to end', async () => {
    const c = await hooks.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
    return Object.values(c).every((n) => n === 0);
  });
}

describe('a refresh that fails', () => {
  it('keeps the last good text with a refresh_failed warning, and the next good refresh clears it', async () => {
    answer = { page: '<html><body><p>Open 9 to 5.</p></body></html>' };
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_urls', JSON.stringify([url('/kept')])));
    const doc = docs[0]!;
    expect(await waitForDocument(h, key, kbId, doc)).toMatchObject({ status: 'ready', text: 'Open 9 to 5.' });

    answer = 'redirect';
    await refresh(kbId, doc);
    const kept = (await waitForDocument(h, key, kbId, doc)) as unknown as Record<string, unknown>;
    expect(kept).toMatchObject({ status: 'ready', text: 'Open 9 to 5.' });
    expect(kept).not.toHaveProperty('error');
    expect(kept.warnings).toEqual([{ code: 'refresh_failed', message: expect.stringMatching(/^The last refresh failed \(fetch_blocked: .*169\.254\.169\.254/) }]);
    const chunks = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/documents/${doc}/chunks`, { key });
    expect(chunks.status).toBe(200);
    expect(chunks.body.data.map((c: { text: string }) => c.text).join(' ')).toContain('Open 9 to 5.');

    answer = { page: '<html><body><p>Open 9 to 5.</p></body></html>' };
    await refresh(kbId, doc);
    const again = (await waitForDocument(h, key, kbId, doc)) as unknown as Record<string, unknown>;
    expect(again).toMatchObject({ status: 'ready', text: 'Open 9 to 5.' });
    expect(again).not.toHaveProperty('warnings');
  });
});

describe('events of a refresh', () => {
  it('sends nothing for an unchanged page, and source.ready with knowledge_base.settled once it changed', async () => {
    const res = await call(h.app, 'POST', '/v1/webhooks', {
      key,
      body: JSON.stringify({ url: `${receiver.origin}/events`, events: ['source.ready', 'knowledge_base.settled'] }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status, res.text).toBe(201);
    receiver.on('/events', { secret: res.body.secret, statuses: [200] });
    const types = () => receiver.at('/events').map((r) => r.verified?.type);

    answer = { page: '<html><body><p>Closed on Sunday.</p></body></html>' };
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_urls', JSON.stringify([url('/events-page')])));
    const doc = docs[0]!;
    await waitForDocument(h, key, kbId, doc);
    await deliveriesDone();
    await waitFor('the first two events', () => types().length >= 2);
    expect(types().sort()).toEqual(['knowledge_base.settled', 'source.ready']);

    await refresh(kbId, doc);
    await waitForDocument(h, key, kbId, doc);
    await deliveriesDone();
    answer = 'redirect';
    await refresh(kbId, doc);
    await waitForDocument(h, key, kbId, doc);
    await deliveriesDone();
    expect(types()).toHaveLength(2);

    answer = { page: '<html><body><p>Open on Sunday.</p></body></html>' };
    await refresh(kbId, doc);
    expect(await waitForDocument(h, key, kbId, doc)).toMatchObject({ text: 'Open on Sunday.' });
    await deliveriesDone();
    await waitFor('the events of the change', () => types().length >= 4);
    expect(types().slice(2).sort()).toEqual(['knowledge_base.settled', 'source.ready']);
  });
});
