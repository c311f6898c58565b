import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';
import { createKbWith, waitForDocument } from '../helpers/worker-harness.js';
import { startWorkerProcess as startProcess } from '../helpers/worker-process.js';

/**
 * Worker processes are real child processes here, killed with real signals.
 * The origin is a loopback server whose first request on /slow never gets an
 * answer, so a job is reliably mid-flight when the signal arrives.
 */
let h: Harness;
let key: string;
let origin: http.Server;
let originPort: number;
const seen: string[] = [];
const children = new Set<ChildProcess>();

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws_recovery');
  origin = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    const firstOfItsKind = seen.filter((u) => u === req.url).length === 1;
    if (req.url?.startsWith('/slow') && firstOfItsKind) return; // hold it open
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Gate</title><p>through the gate</p>');
  });
  origin.listen(0, '127.0.0.1');
  await once(origin, 'listening');
  originPort = (origin.address() as AddressInfo).port;
});
afterEach(() => {
  for (const c of children) c.kill('SIGKILL');
  children.clear();
});
afterAll(async () => {
  origin.closeAllConnections();
  origin.close();
  await h.close();
});

/** A worker process on this file's Redis prefix, with a short job lock. */
async function startWorkerProcess(extra: Record<string, string> = {}): Promise<ChildProcess> {
  const worker = await startProcess(
    {
      REDIS_URL: h.config.redisUrl,
      REDIS_KEY_PREFIX: h.prefix,
      URL_FETCH_ALLOW_PRIVATE: 'true',
      URL_FETCH_TIMEOUT_MS: '60000',
      WORKER_LOCK_DURATION_MS: '2000',
      SHUTDOWN_GRACE_MS: '500',
      ...extra,
    },
    children,
  );
  return worker.child;
}

async function slowSource(path: string): Promise<{ kbId: string; documentId: string }> {
  const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_urls', JSON.stringify([`http://127.0.0.1:${originPort}${path}`])));
  return { kbId, documentId: docs[0]! };
}

describe('worker crashes and restarts', { timeout: 120_000 }, () => {
  it('completes a job once on another worker after the first is killed with SIGKILL mid-job', async () => {
    const { kbId, documentId } = await slowSource('/slow?kill');
    const first = await startWorkerProcess();
    await waitFor('the first worker to start the job', () => seen.includes('/slow?kill'));
    first.kill('SIGKILL');
    await once(first, 'exit');

    await startWorkerProcess();
    const doc = await waitForDocument(h, key, kbId, documentId, 30_000);
    expect(doc, JSON.stringify(doc.error)).toMatchObject({ status: 'ready', title: 'Gate', text: 'Gate\n\nthrough the gate' });
    expect(seen.filter((u) => u === '/slow?kill')).toHaveLength(2);
    const meta = await h.store.kbs.getMeta(kbId);
    expect(meta?.sourceCounts).toEqual({ pending: 0, processing: 0, ready: 1, failed: 0 });
  });

  it('loses nothing when a worker gets SIGTERM during a long job: it exits in its grace period and another finishes the job', async () => {
    const { kbId, documentId } = await slowSource('/slow?term');
    const first = await startWorkerProcess();
    await waitFor('the first worker to start the job', () => seen.includes('/slow?term'));
    let output = '';
    first.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    first.kill('SIGTERM');
    const [code] = (await once(first, 'exit')) as [number | null];
    expect(code).toBe(0);
    // It stopped because its grace period ran out, not because the job finished.
    expect(output).toContain('active jobs did not finish in time; leaving them to another replica');
    expect((await h.store.kbs.getSource(kbId, documentId))?.status).toBe('processing');

    await startWorkerProcess();
    const doc = await waitForDocument(h, key, kbId, documentId, 30_000);
    expect(doc).toMatchObject({ status: 'ready', text: 'Gate\n\nthrough the gate' });
    const meta = await h.store.kbs.getMeta(kbId);
    expect(meta?.sourceCounts).toEqual({ pending: 0, processing: 0, ready: 1, failed: 0 });
  });

  it('exits promptly with code 0 on SIGTERM when idle', async () => {
    const worker = await startWorkerProcess();
    worker.kill('SIGTERM');
    const [code] = (await once(worker, 'exit')) as [number | null];
    expect(code).toBe(0);
  });
});
