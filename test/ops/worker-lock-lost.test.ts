import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { extractSourceJobId } from '../../shared/queue/jobs.js';
import { kbKeys, kbSnapshot } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';
import { createKbWith, waitForDocument } from '../helpers/worker-harness.js';
import { startHoldingOrigin, startWorkerProcess, type HoldingOrigin, type WorkerProcess } from '../helpers/worker-process.js';

/**
 * A worker frozen with SIGSTOP (as a long GC pause or a blocked event loop
 * would) past its job lock: another worker process takes the job over as
 * stalled, and the frozen one, resumed with SIGCONT, finishes its now stale
 * copy of the work. Exactly one result may be written.
 */
let h: Harness;
let key: string;
let origin: HoldingOrigin;
const children = new Set<ChildProcess>();
const workspaceId = 'ws_lock_lost';

beforeAll(async () => {
  h = await createHarness();
  key = await h.key(workspaceId);
  origin = await startHoldingOrigin();
});
afterEach(() => {
  for (const c of children) {
    c.kill('SIGCONT');
    c.kill('SIGKILL');
  }
  children.clear();
});
afterAll(async () => {
  await origin.close();
  await h.close();
});

const startWorker = (): Promise<WorkerProcess> =>
  startWorkerProcess(
    {
      REDIS_URL: h.config.redisUrl,
      REDIS_KEY_PREFIX: h.prefix,
      URL_FETCH_ALLOW_PRIVATE: 'true',
      URL_FETCH_TIMEOUT_MS: '60000',
      // Short enough for a quick takeover, long enough that the busy machine's pauses do not lose a lock.
      WORKER_LOCK_DURATION_MS: '4000',
      WORKER_CONCURRENCY: '1',
      SHUTDOWN_GRACE_MS: '500',
    },
    children,
  );

/** The log line in which `worker` reports what its finish script answered for `documentId`. */
const finishLine = (worker: WorkerProcess, documentId: string): Record<string, unknown> | undefined =>
  worker.lines().find((l) => l.documentId === documentId && typeof l.result === 'string');

/**
 * Creates a URL source, lets a first worker process take it and hang on the
 * origin, starts a second worker, freezes the first and waits until the
 * second has taken the job over and reached the origin too.
 */
async function frozenWorkerAndTakeover(path: string) {
  const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_urls', JSON.stringify([origin.url(path)])));
  const documentId = docs[0]!;
  const requests = () => origin.held.filter((r) => r.url === path);
  const frozen = await startWorker();
  await waitFor('the first worker to fetch the page', () => requests().length === 1, { timeoutMs: 30_000 });
  const takeover = await startWorker();
  process.kill(frozen.pid, 'SIGSTOP');
  await waitFor('the second worker to take the stalled job over and fetch the page', () => requests().length === 2, { timeoutMs: 30_000 });
  const [late, current] = requests() as [(typeof origin.held)[0], (typeof origin.held)[0]];
  return { kbId, documentId, frozen, takeover, late, current, requests };
}

/** Events waiting in the knowledge base's outbox. */
async function outboxLength(kbId: string): Promise<number> {
  const streams = (await kbKeys(h, kbId)).filter((k) => k.endsWith(':outbox'));
  let n = 0;
  for (const k of streams) n += await h.redis.xlen(k);
  return n;
}

describe('a worker that lost its job lock while it was frozen', { timeout: 150_000 }, () => {
  it('writes nothing when it resumes after the worker that took the job over has finished it (SIGSTOP past the lock, then SIGCONT)', async () => {
    const { kbId, documentId, frozen, late, current, requests } = await frozenWorkerAndTakeover('/after-takeover');
    current.answer('Fresh', 'fresh copy');
    const doc = await waitForDocument(h, key, kbId, documentId, 20_000);
    expect(doc).toMatchObject({ status: 'ready', title: 'Fresh', text: 'Fresh\n\nfresh copy' });
    // The relay takes the finish's events out of the outbox in its own time: the snapshot is taken once it has.
    await waitFor('the relay to empty the outbox', async () => (await outboxLength(kbId)) === 0, { timeoutMs: 20_000 });
    const settled = await kbSnapshot(h, kbId);

    process.kill(frozen.pid, 'SIGCONT');
    late.answer('Stale', 'stale copy');
    const line = await waitFor('the resumed worker to try its late finish', () => finishLine(frozen, documentId), { timeoutMs: 20_000 });
    expect(line).toMatchObject({ result: 'not_written', reason: 'ready' }); // refused: the source already ended
    expect(await kbSnapshot(h, kbId)).toEqual(settled);
    expect(frozen.alive()).toBe(true);
    expect(requests()).toHaveLength(2);
    expect((await h.store.kbs.getMeta(kbId))?.sourceCounts).toEqual({ pending: 0, processing: 0, ready: 1, failed: 0 });
    expect(await (await h.queue.getJob(extractSourceJobId({ workspaceId, kbId, documentId, run: 1 })))?.getState()).toBe('completed');
  });

  it('refuses its late result while the worker that took the job over is still working, and keeps that worker\'s result', async () => {
    const { kbId, documentId, frozen, takeover, late, current } = await frozenWorkerAndTakeover('/during-takeover');
    process.kill(frozen.pid, 'SIGCONT');
    late.answer('Stale', 'stale copy');
    const line = await waitFor('the resumed worker to try its late finish', () => finishLine(frozen, documentId), { timeoutMs: 20_000 });
    expect(line).toMatchObject({ result: 'not_written', reason: 'stale' }); // refused: another worker holds the job now
    expect(await h.store.kbs.getSource(kbId, documentId)).toMatchObject({ status: 'processing' });
    expect(await h.redis.exists(h.store.keys.text(kbId, documentId))).toBe(0);

    current.answer('Fresh', 'fresh copy');
    const doc = await waitForDocument(h, key, kbId, documentId, 20_000);
    expect(doc).toMatchObject({ status: 'ready', title: 'Fresh', text: 'Fresh\n\nfresh copy' });
    expect(finishLine(takeover, documentId)?.result).toBe('ready');
    const chunks = await h.store.kbs.chunkPage(kbId, documentId, 0, 100);
    expect(chunks.items.map((c) => c.text).join('')).not.toContain('stale');
    expect((await h.store.kbs.getMeta(kbId))?.sourceCounts).toEqual({ pending: 0, processing: 0, ready: 1, failed: 0 });
    expect(frozen.alive() && takeover.alive()).toBe(true);
  });
});
