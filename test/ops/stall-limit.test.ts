import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractSourceJobId } from '../../shared/jobs.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';
import { createKbWith, waitForDocument } from '../helpers/worker-harness.js';

/**
 * A job whose worker dies more often than WORKER_MAX_STALLED_COUNT allows is
 * failed by BullMQ without the processor running again. Its source must not
 * stay `processing` until the long processing deadline: the reconciler ends
 * it `failed/internal` (a user may retry it). Worker processes are real and killed with SIGKILL;
 * the origin never answers the first request, so the job is mid-flight.
 */
let h: Harness;
let key: string;
let origin: http.Server;
let originPort: number;
const seen: string[] = [];
const children = new Set<ChildProcess>();

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws_stall_limit');
  origin = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    if (seen.filter((u) => u === req.url).length === 1) return; // hold the first one open
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Gate</title><p>through the gate</p>');
  });
  origin.listen(0, '127.0.0.1');
  await once(origin, 'listening');
  originPort = (origin.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  origin.closeAllConnections();
  origin.close();
  await h.close();
});

async function startWorkerProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
    env: {
      ...process.env,
      REDIS_URL: h.config.redisUrl,
      REDIS_KEY_PREFIX: h.prefix,
      URL_FETCH_ALLOW_PRIVATE: 'true',
      WORKER_LOCK_DURATION_MS: '2000',
      // The first stall is already one too many.
      WORKER_MAX_STALLED_COUNT: '0',
      SHUTDOWN_GRACE_MS: '500',
      RECONCILE_INTERVAL_MS: '2000',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${log}`)), 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      log += d.toString();
      if (log.includes('"worker started"')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code} before starting:\n${log}`));
    });
  });
  return child;
}

describe('a job failed for stalling too often', () => {
  it('ends its source failed/internal at the next reconcile instead of leaving it processing until the processing deadline', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_urls', JSON.stringify([`http://127.0.0.1:${originPort}/slow`])));
    const documentId = docs[0]!;
    const first = await startWorkerProcess();
    await waitFor('the first worker to start the job', () => seen.includes('/slow'));
    first.kill('SIGKILL');
    await once(first, 'exit');

    await startWorkerProcess();
    const source = await h.store.kbs.getSource(kbId, documentId);
    const jobId = extractSourceJobId({ workspaceId: 'ws_stall_limit', kbId, documentId, run: source!.run });
    let state = '';
    await waitFor('BullMQ to fail the stalled job', async () => (state = (await (await h.queue.getJob(jobId))?.getState()) ?? 'missing') === 'failed', {
      timeoutMs: 30_000,
      describe: () => state,
    });

    const doc = await waitForDocument(h, key, kbId, documentId, 30_000);
    expect(doc.status).toBe('failed');
    expect(doc.error?.code).toBe('internal');
  }, 90_000);
});
