import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { extractSourceJobId } from '../../shared/queue/jobs.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';
import { createKbWith, startTestWorker, waitForDocument, waitForJobState } from '../helpers/worker-harness.js';
import { startHoldingOrigin, startWorkerProcess, type HoldingOrigin } from '../helpers/worker-process.js';

/**
 * A job that takes down every worker process that runs it (here: each one is
 * killed with SIGKILL while it holds the job) fails once it has stalled more
 * often than WORKER_MAX_STALLED_COUNT, and its source must end with it.
 */
let h: Harness;
let key: string;
let origin: HoldingOrigin;
const children = new Set<ChildProcess>();
const workspaceId = 'ws_stall_limit';
const env = (): Record<string, string> => ({
  REDIS_URL: h.config.redisUrl,
  REDIS_KEY_PREFIX: h.prefix,
  URL_FETCH_ALLOW_PRIVATE: 'true',
  URL_FETCH_TIMEOUT_MS: '60000',
  WORKER_LOCK_DURATION_MS: '2000',
  WORKER_MAX_STALLED_COUNT: '1',
  WORKER_CONCURRENCY: '1',
});

beforeAll(async () => {
  h = await createHarness({ WORKER_LOCK_DURATION_MS: '2000', WORKER_MAX_STALLED_COUNT: '1', URL_FETCH_ALLOW_PRIVATE: 'true' });
  key = await h.key(workspaceId);
  origin = await startHoldingOrigin();
});
afterEach(() => {
  for (const c of children) c.kill('SIGKILL');
  children.clear();
});
afterAll(async () => {
  await origin.close();
  await h.close();
});

describe('a job that kills every worker that runs it', { timeout: 180_000 }, () => {
  it('ends its source failed/internal once it has stalled past WORKER_MAX_STALLED_COUNT, and other sources still end ready', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_urls', JSON.stringify([origin.url('/poison')])));
    const documentId = docs[0]!;
    for (const round of [1, 2]) {
      const worker = await startWorkerProcess(env(), children);
      await waitFor(`worker ${round} to take the job`, () => origin.held.length === round, { timeoutMs: 60_000 });
      worker.child.kill('SIGKILL');
      await once(worker.child, 'exit');
    }

    const survivor = await startTestWorker(h, { reconcileIntervalMs: 1_000 });
    try {
      await waitForJobState(h, extractSourceJobId({ workspaceId, kbId, documentId, run: 1 }), 'failed', 60_000);
      const doc = await waitForDocument(h, key, kbId, documentId, 30_000);
      expect(doc).toMatchObject({ status: 'failed', error: { code: 'internal' } });
      expect(origin.held).toHaveLength(2);

      const other = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['unaffected'])));
      expect(await waitForDocument(h, key, other.kbId, other.docs[0]!, 30_000)).toMatchObject({ status: 'ready', text: 'unaffected' });
    } finally {
      await survivor.close();
    }
  });
});
