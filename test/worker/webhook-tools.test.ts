import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuePrefix, WEBHOOK_QUEUE } from '../../shared/queue/jobs.js';
import { createLogger } from '../../shared/runtime/logger.js';
import { createRedis } from '../../shared/redis/redis.js';
import { startWorker, type RunningWorker } from '../../worker/main.js';
import { sourceReadyPublisher } from '../helpers/publish-event.js';
import { call, expectErrorBody } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

let h: Harness;
let receiver: Receiver;
let worker: RunningWorker;
let hooks: Queue;
let sourceReady: ReturnType<typeof sourceReadyPublisher>;
const RETRY_MS = 150;

beforeAll(async () => {
  // Loopback receivers need the private-address rule lifted; nothing here leaves 127.0.0.1.
  h = await createHarness({ URL_FETCH_ALLOW_PRIVATE: 'true', WEBHOOK_SECRET_GRACE_HOURS: '2' });
  receiver = await startReceiver();
  worker = await startWorker(h.config, createLogger('silent'), {
    reconcileIntervalMs: 3_600_000,
    // Disabled once every attempt failed for 400 ms (days in production); no back-off in the way.
    webhooks: { timeoutMs: 2_000, retryDelaysMs: Array(7).fill(RETRY_MS), health: { backoffAfter: 1_000, disableAfterMs: 400 } },
  });
  hooks = new Queue(WEBHOOK_QUEUE, { connection: createRedis(h.config, 'api'), prefix: queuePrefix(h.prefix) });
  sourceReady = sourceReadyPublisher(h.store.webhooks, hooks, Array(7).fill(RETRY_MS));
});
afterAll(async () => {
  await worker.close();
  await hooks.close();
  await receiver.close();
  await h.close();
});

interface Registered {
  key: string;
  webhookId: string;
  secret: string;
}

async function register(workspaceId: string, path: string, statuses: number[]): Promise<Registered> {
  const key = await h.key(workspaceId);
  const res = await call(h.app, 'POST', '/v1/webhooks', {
    key,
    body: JSON.stringify({ url: `${receiver.origin}${path}`, events: ['source.ready'] }),
    headers: { 'content-type': 'application/json' },
  });
  expect(res.status, res.text).toBe(201);
  receiver.on(path, { secret: res.body.secret, statuses });
  return { key, webhookId: res.body.webhookId, secret: res.body.secret };
}


const deliveries = async (r: Registered) => (await call(h.app, 'GET', `/v1/webhooks/${r.webhookId}/deliveries`, { key: r.key })).body.data as Record<string, unknown>[];

describe('the delivery record', () => {
  it('names the event type, knowledge base and source, and the next attempt time while one is due', async () => {
    const r = await register('ws_record', '/record', [503, 200]);
    await sourceReady('ws_record', 'doc_rec');
    // The retry is due 150 ms after the 503; the bound is for a machine busy with the rest of the suite
    // (it once ran out at 20 s there, and says what the queue held if it does again).
    await waitFor('the retry to be delivered', () => receiver.at('/record').length === 2, {
      timeoutMs: 60_000,
      describe: async () => `received ${receiver.at('/record').length}; delivery jobs ${JSON.stringify(await hooks.getJobCounts())}; records ${JSON.stringify(await deliveries(r))}`,
    });
    const [second, first] = await waitFor('both attempts recorded', async () => {
      const d = await deliveries(r);
      return d.length === 2 && d;
    });
    expect(first).toMatchObject({ type: 'source.ready', kbId: 'kb_ws_record', documentId: 'doc_rec', siteId: null, attempt: 1, statusCode: 503, willRetry: true });
    const due = Date.parse(first!.nextAttemptAt as string) - Date.parse(first!.attemptedAt as string);
    expect(due).toBeGreaterThanOrEqual(RETRY_MS - 5);
    expect(due).toBeLessThan(RETRY_MS + 1_000);
    expect(second).toMatchObject({ attempt: 2, statusCode: 200, willRetry: false, nextAttemptAt: null, kbId: 'kb_ws_record' });
  }, 90_000);
});

describe('POST /v1/webhooks/{webhookId}/test', () => {
  it('delivers a signed webhook.test event to that webhook', async () => {
    const r = await register('ws_test_event', '/test-event', [200]);
    const res = await call(h.app, 'POST', `/v1/webhooks/${r.webhookId}/test`, { key: r.key });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ webhookId: r.webhookId, type: 'webhook.test', eventId: expect.stringMatching(/^evt_test_/) });
    await waitFor('the test event', () => receiver.at('/test-event').length === 1);
    const got = receiver.at('/test-event')[0]!;
    expect(got.verifyError).toBeUndefined();
    expect(got.verified).toMatchObject({ id: res.body.eventId, type: 'webhook.test', data: { webhookId: r.webhookId } });
    const job = await waitFor('the delivery job to complete', async () =>
      (await hooks.getJobs(['completed'], 0, -1)).find((j) => (j.data as { eventId: string }).eventId === res.body.eventId),
    );
    expect(job.name).toBe('webhook webhook.test');
  });

  it("returns 404 naming webhookId for another workspace's unknown id and 403 for another workspace's webhook", async () => {
    const r = await register('ws_test_owner', '/test-owner', [200]);
    const stranger = await h.key('ws_test_stranger');
    expectErrorBody(await call(h.app, 'POST', `/v1/webhooks/${r.webhookId}/test`, { key: stranger }), 403, '/v1/webhooks');
    expectErrorBody(await call(h.app, 'POST', '/v1/webhooks/wh_nope/test', { key: stranger }), 404, '/v1/webhooks', { fields: ['webhookId'] });
  });
});

describe('POST /v1/webhooks/{webhookId}/deliveries/{eventId}/redeliver', () => {
  it('sends the same event id and body again after it was delivered', async () => {
    const r = await register('ws_redeliver', '/redeliver', [200]);
    await sourceReady('ws_redeliver', 'doc_again');
    await waitFor('the first delivery', () => receiver.at('/redeliver').length === 1);
    const eventId = receiver.at('/redeliver')[0]!.headers['webhook-id'] as string;
    const res = await call(h.app, 'POST', `/v1/webhooks/${r.webhookId}/deliveries/${eventId}/redeliver`, { key: r.key });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toEqual({ webhookId: r.webhookId, eventId, type: 'source.ready' });
    await waitFor('the redelivery', () => receiver.at('/redeliver').length === 2);
    const [first, again] = receiver.at('/redeliver');
    expect(again!.headers['webhook-id']).toBe(eventId);
    expect(again!.body).toBe(first!.body);
    expect(again!.verifyError).toBeUndefined();
  });

  it('returns 404 naming eventId for an event it does not keep', async () => {
    const r = await register('ws_redeliver_gone', '/redeliver-gone', [200]);
    const res = await call(h.app, 'POST', `/v1/webhooks/${r.webhookId}/deliveries/evt_unknown/redeliver`, { key: r.key });
    expectErrorBody(res, 404, '/v1/webhooks', { fields: ['eventId'] });
  });
});

describe('POST /v1/webhooks/{webhookId}/rotate-secret', () => {
  it('signs with the new and the previous secret during the grace period, so both verify', async () => {
    const r = await register('ws_rotate', '/rotate', [200]);
    const res = await call(h.app, 'POST', `/v1/webhooks/${r.webhookId}/rotate-secret`, { key: r.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body.secret).toMatch(/^whsec_/);
    expect(res.body.secret).not.toBe(r.secret);
    const grace = Date.parse(res.body.previousSecretExpiresAt) - Date.now();
    expect(grace).toBeGreaterThan(2 * 3_600_000 - 60_000);
    expect(grace).toBeLessThanOrEqual(2 * 3_600_000);

    await sourceReady('ws_rotate', 'doc_rotated');
    await waitFor('the delivery after the rotation', () => receiver.at('/rotate').length === 1);
    const got = receiver.at('/rotate')[0]!;
    // The route verifies with the old secret; verify with the new one too.
    expect(got.verifyError).toBeUndefined();
    const { Webhook } = await import('standardwebhooks');
    expect(() => new Webhook(res.body.secret).verify(got.body, got.headers as Record<string, string>)).not.toThrow();
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    const hook = (await call(h.app, 'GET', `/v1/webhooks/${r.webhookId}`, { key: r.key })).body;
    expect(hook.previousSecretExpiresAt).toBe(res.body.previousSecretExpiresAt);
  });
});

describe('a webhook whose every attempt fails for WEBHOOK_DISABLE_AFTER_DAYS', () => {
  it('is disabled with the time and reason on its record, gets no new deliveries, and can be enabled again', async () => {
    const r = await register('ws_disabled', '/dead', [500]);
    await sourceReady('ws_disabled', 'doc_0');
    const disabled = await waitFor('the webhook to be disabled', async () => {
      const v = (await call(h.app, 'GET', `/v1/webhooks/${r.webhookId}`, { key: r.key })).body;
      return v.status === 'disabled' && v;
    });
    expect(disabled.disabledAt).toEqual(expect.any(String));
    expect(disabled.disabledReason).toMatch(/every delivery attempt failed .*the receiver answered 500/);
    const attempts = receiver.at('/dead').length;
    expect(attempts).toBeGreaterThanOrEqual(2);
    expect(attempts).toBeLessThan(8);

    await sourceReady('ws_disabled', 'doc_1');
    expect(await hooks.getJobs(['wait', 'prioritized', 'delayed', 'active'], 0, -1)).not.toContainEqual(expect.objectContaining({ data: expect.objectContaining({ webhookId: r.webhookId, eventId: expect.anything() }) }));
    expectErrorBody(await call(h.app, 'POST', `/v1/webhooks/${r.webhookId}/test`, { key: r.key }), 409, '/v1/webhooks', { message: 'any' });

    receiver.on('/dead', { secret: r.secret, statuses: [200] });
    const enabled = await call(h.app, 'POST', `/v1/webhooks/${r.webhookId}/enable`, { key: r.key });
    expect(enabled.body).toMatchObject({ status: 'active', disabledAt: null, disabledReason: null, consecutiveFailures: 0 });
    expect((await call(h.app, 'POST', `/v1/webhooks/${r.webhookId}/test`, { key: r.key })).status).toBe(202);
    await waitFor('the test event after enabling', () => receiver.at('/dead').some((x) => x.status === 200));
  });
});
