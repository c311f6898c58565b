import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractSourceJobId } from '../../shared/queue/jobs.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';
import { createKbWith, waitForDocument } from '../helpers/worker-harness.js';
import { startHoldingOrigin, startWorkerProcess, type HoldingOrigin } from '../helpers/worker-process.js';

/**
 * Redis dies (SIGKILL) while a worker process is in the middle of a job and
 * comes back a few seconds later from its AOF: longer than the job lock, so
 * the lock has lapsed when Redis returns and the job is found stalled.
 */
let server: RedisServerHandle;
let h: Harness;
let key: string;
let origin: HoldingOrigin;
const children = new Set<ChildProcess>();
const workspaceId = 'ws_outage';

beforeAll(async () => {
  server = await startRedisServer({ appendonly: true });
  h = await createHarness({ REDIS_URL: server.url });
  h.redis.on('error', () => undefined);
  h.queue.on('error', () => undefined);
  key = await h.key(workspaceId);
  origin = await startHoldingOrigin();
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await origin.close();
  await h.close().catch(() => undefined);
  await server.stop();
  await rm(server.dir, { recursive: true, force: true });
});

describe('Redis killed while a worker process runs a job', { timeout: 150_000 }, () => {
  it('ends the source exactly once, ready, after Redis comes back from its AOF, and the worker process keeps running', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_urls', JSON.stringify([origin.url('/outage')])));
    const documentId = docs[0]!;
    const worker = await startWorkerProcess(
      {
        REDIS_URL: server.url,
        REDIS_KEY_PREFIX: h.prefix,
        URL_FETCH_ALLOW_PRIVATE: 'true',
        URL_FETCH_TIMEOUT_MS: '60000',
        WORKER_LOCK_DURATION_MS: '2000',
        WORKER_CONCURRENCY: '1',
      },
      children,
    );
    await waitFor('the worker to fetch the page', () => origin.held.length === 1, { timeoutMs: 30_000 });

    server.process.kill('SIGKILL');
    await once(server.process, 'exit');
    await waitFor('the worker to notice that Redis is gone', () => worker.lines().some((l) => /connection error/.test(String(l.msg))), { timeoutMs: 15_000 });
    await new Promise((r) => setTimeout(r, 3_000));
    server = await startRedisServer({ appendonly: true, port: server.port, dir: server.dir });
    origin.release('Back', 'after the outage');
    await waitFor('the API to reach Redis again', async () => (await h.app.request('/readyz')).status === 200, { timeoutMs: 20_000 });

    const doc = await waitForDocument(h, key, kbId, documentId, 60_000);
    expect(doc, JSON.stringify(doc.error)).toMatchObject({ status: 'ready', title: 'Back', text: 'Back\n\nafter the outage' });
    const jobId = extractSourceJobId({ workspaceId, kbId, documentId, run: 1 });
    let state = '';
    await waitFor('the job to complete', async () => (state = (await (await h.queue.getJob(jobId))?.getState()) ?? 'missing') === 'completed', {
      timeoutMs: 30_000,
      describe: () => state,
    });
    const meta = await h.store.kbs.getMeta(kbId);
    expect(meta?.sourceCounts).toEqual({ pending: 0, processing: 0, ready: 1, failed: 0 });
    // Exactly one write of the result: a second finish would have been refused and logged as such.
    const written = worker.lines().filter((l) => l.documentId === documentId && l.result === 'ready' && l.repeated === undefined);
    expect(written).toHaveLength(1);
    expect(worker.alive()).toBe(true);
    // The outage is in the log with what the driver said, and nothing fatal.
    const outage = worker.lines().filter((l) => /connection error/.test(String(l.msg)));
    expect(outage.some((l) => /ECONNREFUSED|ECONNRESET|closed/.test(String(l.reason)))).toBe(true);
    expect(worker.lines().filter((l) => Number(l.level) >= 60)).toEqual([]);
  });
});
