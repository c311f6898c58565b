import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverEventJobId, queuePrefix, WEBHOOK_QUEUE } from '../../shared/queue/jobs.js';
import { createLogger } from '../../shared/runtime/logger.js';
import { createRedis } from '../../shared/redis/redis.js';
import type { RunningWorker } from '../../worker/main.js';
import { eventId } from '../../shared/webhooks/webhook-events.js';
import { call } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { filePart, multipartForm, nameField, textsField } from '../helpers/multipart-body.js';
import { freePort } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { startWorker } from '../../worker/main.js';
import { brokenPdf } from '../fixtures/pdf.js';

let h: Harness;
let receiver: Receiver;
let worker: RunningWorker;
let hooks: Queue;
const workerLog: string[] = [];
const secrets: string[] = [];

beforeAll(async () => {
  // Loopback receivers need the private-address rule lifted; nothing here leaves 127.0.0.1.
  h = await createHarness({ URL_FETCH_ALLOW_PRIVATE: 'true', JOB_ATTEMPTS: '2', JOB_BACKOFF_MS: '50' });
  receiver = await startReceiver();
  const logger = createLogger('trace', {}, { write: (line: string) => void workerLog.push(line) });
  worker = await startWorker(h.config, logger, { reconcileIntervalMs: 3_600_000, webhooks: { retryDelaysMs: [20, 20, 20] } });
  hooks = new Queue(WEBHOOK_QUEUE, { connection: createRedis(h.config, 'api'), prefix: queuePrefix(h.prefix) });
});
afterAll(async () => {
  await worker.close();
  await hooks.close();
  await receiver.close();
  await h.close();
});

interface Hook {
  webhookId: string;
  secret: string;
}

/** Registers `path` of the receiver for `events` in `workspace` and routes it to answer `statuses`. */
async function hook(key: string, path: string, events: string[], statuses: number[], before?: Parameters<Receiver['on']>[1]['before']): Promise<Hook> {
  const res = await call(h.app, 'POST', '/v1/webhooks', {
    key,
    body: JSON.stringify({ url: `${receiver.origin}${path}`, events }),
    headers: { 'content-type': 'application/json' },
  });
  expect(res.status, res.text).toBe(201);
  secrets.push(res.body.secret);
  receiver.on(path, { secret: res.body.secret, statuses, ...(before && { before }) });
  return res.body as Hook;
}

async function createKb(key: string, parts: Parameters<typeof multipartForm>[0]): Promise<{ kbId: string; docs: string[] }> {
  const res = await call(h.app, 'POST', '/v1/knowledge-bases', { key, body: multipartForm([nameField('hooks'), ...parts]) });
  expect(res.status, res.text).toBe(201);
  return { kbId: res.body.kbId, docs: res.body.files.map((f: { documentId: string }) => f.documentId) };
}

/** Waits until the delivery queue has nothing waiting, delayed or running: every delivery has ended. */
async function deliveriesSettled(): Promise<void> {
  let last = '';
  await waitFor(
    'every webhook delivery to end',
    async () => {
      const c = await hooks.getJobCounts('waiting', 'delayed', 'active', 'prioritized', 'waiting-children');
      last = JSON.stringify(c);
      return Object.values(c).every((n) => n === 0);
    },
    { describe: () => last },
  );
}

async function deliveries(key: string, webhookId: string) {
  const res = await call(h.app, 'GET', `/v1/webhooks/${webhookId}/deliveries`, { key });
  expect(res.status).toBe(200);
  return res.body.data as { eventId: string; type: string; attempt: number; statusCode: number | null; error: string | null; willRetry: boolean }[];
}

describe('completion webhooks against a loopback receiver', () => {
  it('retries a 500 with the same event id and a signature the standardwebhooks library accepts', async () => {
    const key = await h.key('ws_retry');
    const { webhookId } = await hook(key, '/flaky', ['source.ready'], [500, 200]);
    const { kbId, docs } = await createKb(key, [textsField([{ title: 'Hours', text: 'Open 9 to 5.' }])]);

    const got = await waitFor('two requests at /flaky', () => receiver.at('/flaky').length >= 2 && receiver.at('/flaky'));
    expect(got.map((r) => r.status)).toEqual([500, 200]);
    for (const r of got) expect(r.verifyError, 'signature verified').toBeUndefined();
    expect(got[0]!.headers['webhook-id']).toBe(got[1]!.headers['webhook-id']);
    expect(got[0]!.body).toBe(got[1]!.body);
    const event = got[1]!.verified!;
    expect(event).toEqual({
      id: got[0]!.headers['webhook-id'],
      type: 'source.ready',
      createdAt: expect.any(String),
      data: { kbId, documentId: docs[0], status: 'ready' },
    });
    expect(event.id).toBe(eventId(kbId, docs[0]!, 1, 'source.ready'));
    expect(got[0]!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);

    await deliveriesSettled();
    expect(receiver.at('/flaky')).toHaveLength(2);
    const history = await deliveries(key, webhookId);
    expect(history.map((d) => [d.attempt, d.statusCode, d.willRetry])).toEqual([
      [2, 200, false],
      [1, 500, true],
    ]);
    expect(history.every((d) => d.eventId === event.id && d.type === 'source.ready')).toBe(true);
  });

  it('sends knowledge_base.settled once, when the last source ends, with the counts, and source.failed with its error', async () => {
    const key = await h.key('ws_settle');
    await hook(key, '/settle', ['knowledge_base.settled', 'source.failed'], [200]);
    const { kbId, docs } = await createKb(key, [
      textsField([{ title: 'a', text: 'First note.' }, { title: 'b', text: 'Second note.' }]),
      filePart('broken.pdf', brokenPdf()),
    ]);
    await waitFor('a settled event', () => receiver.at('/settle').some((r) => r.verified?.type === 'knowledge_base.settled'));
    await deliveriesSettled();

    const events = receiver.at('/settle').map((r) => r.verified!);
    expect(receiver.at('/settle').every((r) => r.verifyError === undefined)).toBe(true);
    const settled = events.filter((e) => e.type === 'knowledge_base.settled');
    expect(settled).toHaveLength(1);
    expect(settled[0]!.data).toEqual({ kbId, sourceCounts: { pending: 0, processing: 0, ready: 2, failed: 1 } });
    const failed = events.filter((e) => e.type === 'source.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.data).toEqual({ kbId, documentId: docs[2], status: 'failed', error: { code: 'corrupt', message: expect.any(String) } });
    expect(events.filter((e) => e.type === 'source.ready')).toHaveLength(0);

    // Adding a source makes the knowledge base busy again; it settles again under a new id.
    const patch = await call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}`, { key, body: multipartForm([textsField([{ title: 'c', text: 'Third.' }])]) });
    expect(patch.status, patch.text).toBe(200);
    const again = await waitFor('a second settled event', () => {
      const all = receiver.at('/settle').filter((r) => r.verified?.type === 'knowledge_base.settled');
      return all.length >= 2 && all;
    });
    expect(again[1]!.verified!.id).not.toBe(again[0]!.verified!.id);
    expect(again[1]!.verified!.data).toEqual({ kbId, sourceCounts: { pending: 0, processing: 0, ready: 3, failed: 1 } });
  });

  it('delivers nothing more once the webhook is deleted', async () => {
    const key = await h.key('ws_delete');
    let webhookId = '';
    // The webhook is deleted while its first delivery is in flight; the receiver answers 503, a retryable status.
    const deleted = hook(key, '/deleted', ['source.ready'], [503], async () => {
      const res = await call(h.app, 'DELETE', `/v1/webhooks/${webhookId}`, { key });
      expect(res.status).toBe(204);
    });
    webhookId = (await deleted).webhookId;
    const { kbId, docs } = await createKb(key, [textsField([{ title: 'x', text: 'Delete me.' }])]);
    const jobId = deliverEventJobId({ workspaceId: 'ws_delete', webhookId, eventId: eventId(kbId, docs[0]!, 1, 'source.ready') });
    await waitFor('the delivery job to end', async () => (await hooks.getJob(jobId))?.finishedOn !== undefined);
    const job = await hooks.getJob(jobId);
    expect(job?.returnvalue).toEqual({ status: 'skipped', reason: 'webhook deleted' });
    expect(job?.attemptsMade).toBe(2);
    expect(receiver.at('/deleted')).toHaveLength(1);
    expect(await h.redis.exists(h.store.keys.webhookDeliveries(webhookId))).toBe(0);
  });

  it.each([
    [400, 1],
    [404, 1],
    [410, 1],
    [408, 2],
    [429, 2],
    [503, 2],
  ])('after a %i answer makes %i attempt(s) in all', async (status, attempts) => {
    const key = await h.key(`ws_status_${status}`);
    const path = `/status-${status}`;
    const { webhookId } = await hook(key, path, ['source.ready'], [status, 200]);
    await createKb(key, [textsField([{ title: 's', text: `Status ${status}.` }])]);
    await waitFor(`a request at ${path}`, () => receiver.at(path).length >= 1);
    await deliveriesSettled();
    expect(receiver.at(path)).toHaveLength(attempts);
    const history = await deliveries(key, webhookId);
    expect(history.at(-1)).toMatchObject({ attempt: 1, statusCode: status, willRetry: attempts > 1 });
  });

  it('retries a refused connection on every step of the schedule, then gives up', async () => {
    const key = await h.key('ws_down');
    const port = await freePort();
    const res = await call(h.app, 'POST', '/v1/webhooks', {
      key,
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/gone`, events: ['source.ready'] }),
      headers: { 'content-type': 'application/json' },
    });
    secrets.push(res.body.secret);
    await createKb(key, [textsField([{ title: 'd', text: 'Nobody listens.' }])]);
    const history = await waitFor('four attempts', async () => {
      const d = await deliveries(key, res.body.webhookId);
      return d.length >= 4 && d;
    });
    await deliveriesSettled();
    expect(history.map((d) => [d.attempt, d.statusCode, d.error, d.willRetry])).toEqual([
      [4, null, 'the connection to the receiver failed', false],
      [3, null, 'the connection to the receiver failed', true],
      [2, null, 'the connection to the receiver failed', true],
      [1, null, 'the connection to the receiver failed', true],
    ]);
  });

  it('delivers the events of a finish written outside any worker (one that died right after its finish script), under the same ids', async () => {
    const key = await h.key('ws_crash');
    await hook(key, '/crash', ['source.ready', 'knowledge_base.settled'], [200]);
    // A second worker consumer is not needed: the source is finished by hand
    // before the running worker takes its job, as a worker that died right
    // after the finish script would leave it.
    await worker.worker.pause();
    try {
      const { kbId, docs } = await createKb(key, [textsField([{ title: 'c', text: 'Crash window.' }])]);
      const now = new Date().toISOString();
      expect((await h.store.kbs.startSourceReport({ kbId: kbId, documentId: docs[0]!, run: 1 }, { now: now })).result).toBe('ok');
      const report = await h.store.kbs.finishSourceReport({ kbId: kbId, documentId: docs[0]!, run: 1 }, { status: 'ready', text: 'Crash window.', truncated: false }, { now: now });
      expect(report).toEqual({ result: 'ok', sourceCounts: { pending: 0, processing: 0, ready: 1, failed: 0 }, settledSeq: 1, chunking: { maxTokens: 512, overlapTokens: 0 } });
      worker.worker.resume();
      await waitFor('two events at /crash', () => receiver.at('/crash').length >= 2);
      await deliveriesSettled();
      const ids = receiver.at('/crash').map((r) => [r.verified?.type, r.verified?.id]);
      expect(ids.sort()).toEqual(
        [
          ['knowledge_base.settled', eventId(kbId, 'settled', 1)],
          ['source.ready', eventId(kbId, docs[0]!, 1, 'source.ready')],
        ].sort(),
      );
    } finally {
      worker.worker.resume();
    }
  });

  it('keeps extracting while a receiver holds a delivery open', async () => {
    const key = await h.key('ws_slow');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await hook(key, '/slow', ['source.ready'], [200], () => held);
    try {
      await createKb(key, [textsField([{ title: 'first', text: 'Held delivery.' }])]);
      await waitFor('the delivery to reach the receiver', () => receiver.at('/slow').length === 1);
      const { kbId, docs } = await createKb(key, [textsField([{ title: 'second', text: 'Extracted anyway.' }])]);
      const doc = await waitFor('the second source to be ready while the first delivery is open', async () => {
        const res = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/documents/${docs[0]}`, { key });
        return res.body.status === 'ready' && res.body;
      });
      expect(doc.text).toBe('Extracted anyway.');
      expect((await hooks.getJobCounts('active')).active).toBeGreaterThan(0);
    } finally {
      release();
    }
    await deliveriesSettled();
  });

  it('keeps secrets out of job data and out of every log line', async () => {
    expect(secrets.length).toBeGreaterThan(5);
    const jobs = await hooks.getJobs(['completed', 'failed']);
    expect(jobs.length).toBeGreaterThan(5);
    for (const job of jobs) expect(Object.keys(job.data).sort()).toEqual(['eventId', 'webhookId', 'workspaceId']);
    expect(workerLog.some((l) => l.includes('event delivered')), 'deliveries were logged').toBe(true);
    const leaks = workerLog.filter((line) => secrets.some((s) => line.includes(s.slice('whsec_'.length))));
    expect(leaks).toEqual([]);
    const stored = JSON.stringify(jobs.map((j) => [j.data, j.failedReason, j.returnvalue, j.stacktrace]));
    for (const s of secrets) expect(stored).not.toContain(s.slice('whsec_'.length));
  });
});
