import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuePrefix, WEBHOOK_QUEUE } from '../../shared/queue/jobs.js';
import { createLogger } from '../../shared/runtime/logger.js';
import { createRedis } from '../../shared/redis/redis.js';
import { startWorker, type RunningWorker } from '../../worker/main.js';
import { sourceReadyPublisher } from '../helpers/publish-event.js';
import { call } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

/** One attempt's deadline: a receiver that never answers holds a delivery slot this long. */
const TIMEOUT_MS = 1_000;

let h: Harness;
let receiver: Receiver;
let worker: RunningWorker;
let hooks: Queue;
let sourceReady: ReturnType<typeof sourceReadyPublisher>;

beforeAll(async () => {
  // Loopback receivers need the private-address rule lifted; nothing here leaves 127.0.0.1.
  h = await createHarness({ URL_FETCH_ALLOW_PRIVATE: 'true', WEBHOOK_CONCURRENCY: '4', WEBHOOK_ENDPOINT_CONCURRENCY: '1' });
  receiver = await startReceiver();
  worker = await startWorker(h.config, createLogger('silent'), {
    reconcileIntervalMs: 3_600_000,
    webhooks: { timeoutMs: TIMEOUT_MS, retryDelaysMs: [100, 100, 100], health: { backoffAfter: 3, backoffBaseMs: 60_000 } },
  });
  hooks = new Queue(WEBHOOK_QUEUE, { connection: createRedis(h.config, 'api'), prefix: queuePrefix(h.prefix) });
  sourceReady = sourceReadyPublisher(h.store.webhooks, hooks, [100, 100, 100]);
});
afterAll(async () => {
  await worker.close();
  await hooks.close();
  await receiver.close();
  await h.close();
});

/** Registers a webhook of `workspaceId` on `path` of the receiver, answering as `route` says. */
async function register(workspaceId: string, path: string, route: { statuses: number[]; hang?: boolean }): Promise<string> {
  const hook = await h.store.webhooks.create(workspaceId, { url: `${receiver.origin}${path}`, events: ['source.ready'] }, 20, new Date().toISOString());
  receiver.on(path, { secret: hook.secret, ...route });
  return hook.webhookId;
}


const view = async (workspaceId: string, webhookId: string) => {
  const res = await call(h.app, 'GET', `/v1/webhooks/${webhookId}`, { key: await h.key(workspaceId) });
  expect(res.status, res.text).toBe(200);
  return res.body as { status: string; consecutiveFailures: number; failingSince: string | null; backoffUntil: string | null; disabledAt: string | null; disabledReason: string | null };
};

describe('receivers that never answer', () => {
  it("do not hold another workspace's delivery behind one workspace's backlog", async () => {
    for (let i = 0; i < 6; i++) await register('ws_hanging', `/hang-${i}`, { statuses: [200], hang: true });
    await register('ws_waiting', '/prompt', { statuses: [200] });
    for (let d = 0; d < 8; d++) await sourceReady('ws_hanging', `doc_${d}`);
    // 48 deliveries that each hold a slot for the whole timeout: first in, first out they would take 12 s on 4 slots.
    await waitFor('the hanging receivers to be reached', () => receiver.at('/hang-0').length > 0);
    const emitted = Date.now();
    await sourceReady('ws_waiting', 'doc_0');
    await waitFor('the other workspace to get its delivery', () => receiver.at('/prompt').length === 1, { timeoutMs: 15_000 });
    const waitedMs = Date.now() - emitted;
    // At most the slots being held when it was queued, plus scheduling.
    expect(waitedMs).toBeLessThan(TIMEOUT_MS + 2_000);
    expect(receiver.at('/prompt')[0]!.verifyError).toBeUndefined();
  });

  it('are sent at most WEBHOOK_ENDPOINT_CONCURRENCY deliveries at once', async () => {
    await register('ws_one_endpoint', '/hang-alone', { statuses: [200], hang: true });
    for (let d = 0; d < 6; d++) await sourceReady('ws_one_endpoint', `doc_${d}`);
    await waitFor('three attempts at the endpoint', () => receiver.at('/hang-alone').length >= 3, { timeoutMs: 15_000 });
    expect(receiver.maxOpen('/hang-alone')).toBe(1);
  });
});

describe('an endpoint that keeps failing', () => {
  it('is backed off after 3 failures in a row: the waiting deliveries are not attempted', async () => {
    const webhookId = await register('ws_failing', '/always-500', { statuses: [500] });
    for (let d = 0; d < 5; d++) await sourceReady('ws_failing', `doc_${d}`);
    const backedOff = await waitFor('the endpoint to be backed off', async () => {
      const v = await view('ws_failing', webhookId);
      return v.backoffUntil !== null && v;
    });
    expect(backedOff).toMatchObject({ status: 'active', consecutiveFailures: 3, failingSince: expect.any(String) });
    expect(Date.parse(backedOff.backoffUntil!) - Date.now()).toBeGreaterThan(50_000);
    // Five events, each retried: without the back-off the endpoint would see a request every 100 ms.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(receiver.at('/always-500')).toHaveLength(3);
    const waiting = await hooks.getJobs(['delayed'], 0, -1);
    expect(waiting.filter((j) => (j.data as { webhookId: string }).webhookId === webhookId).length).toBe(5);
  });

  it('is active again, with its failures cleared, after POST .../enable', async () => {
    const webhookId = await register('ws_reenabled', '/500-then-enable', { statuses: [500] });
    for (let d = 0; d < 3; d++) await sourceReady('ws_reenabled', `doc_${d}`);
    await waitFor('the endpoint to be backed off', async () => (await view('ws_reenabled', webhookId)).backoffUntil !== null);
    const res = await call(h.app, 'POST', `/v1/webhooks/${webhookId}/enable`, { key: await h.key('ws_reenabled') });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: 'active', consecutiveFailures: 0, failingSince: null, backoffUntil: null });
  });
});
