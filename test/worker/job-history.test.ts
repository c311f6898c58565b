import { UnrecoverableError, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullSourceQueue, defaultJobOptions, INGEST_QUEUE, JOB_HISTORY, queuePrefix, type ExtractSourceJob } from '../../shared/queue/jobs.js';
import { createRedis } from '../../shared/redis/redis.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

describe('finished-job history', () => {
  it('trims completed jobs after a day or past 1,000 and failed ones after a week or past 5,000 by default', () => {
    expect(JOB_HISTORY).toEqual({ completed: { age: 86_400, count: 1_000 }, failed: { age: 604_800, count: 5_000 } });
    expect(defaultJobOptions(5)).toMatchObject({ removeOnComplete: { age: 86_400, count: 1_000 }, removeOnFail: { age: 604_800, count: 5_000 } });
  });

  it('keeps the completed and failed sets at their caps, and no other job, however many jobs run through the queue', async () => {
    const history = { completed: { age: 3_600, count: 20 }, failed: { age: 3_600, count: 10 } };
    const queue = bullSourceQueue(h.queue, 1, 10, history);
    const total = 400;
    const jobs: ExtractSourceJob[] = Array.from({ length: total }, (_, i) => ({
      workspaceId: 'ws_history',
      kbId: 'kb_history',
      documentId: `doc_${i}`,
      run: 1,
    }));
    let finished = 0;
    const worker = new Worker(
      INGEST_QUEUE,
      async (job) => {
        if (Number(String(job.data.documentId).slice(4)) % 4 === 0) throw new UnrecoverableError('corrupt: damaged');
        return { status: 'ready' };
      },
      { connection: createRedis(h.config, 'worker'), prefix: queuePrefix(h.prefix), concurrency: 20 },
    );
    worker.on('completed', () => (finished += 1));
    worker.on('failed', () => (finished += 1));
    try {
      for (let i = 0; i < total; i += 100) await queue.enqueue(jobs.slice(i, i + 100));
      await waitFor('every job to finish', () => finished === total, { timeoutMs: 60_000, describe: () => `${finished} of ${total}` });
    } finally {
      await worker.close();
    }
    const counts = await h.queue.getJobCounts('completed', 'failed', 'waiting', 'active', 'delayed');
    expect(counts).toEqual({ completed: 20, failed: 10, waiting: 0, active: 0, delayed: 0 });
    // The trimmed jobs' own keys are gone too, not only their set entries.
    const jobKeys = (await h.allKeys()).filter((k) => /:ingest:kb_history\.doc_\d+\.r1$/.test(k));
    expect(jobKeys).toHaveLength(30);
  });
});
