import { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullSourceQueue, INGEST_QUEUE, queuePrefix, type ExtractSourceJob, type SourceQueue } from '../../shared/queue/jobs.js';
import { createRedis } from '../../shared/redis/redis.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';

let h: Harness;
let queue: SourceQueue;

beforeAll(async () => {
  h = await createHarness();
  queue = bullSourceQueue(h.queue, 2, 50);
});
afterAll(async () => h.close());

let seq = 0;
const job = (workspaceId: string): ExtractSourceJob => ({ workspaceId, kbId: `kb_${workspaceId}`, documentId: `doc_${++seq}`, run: 1 });

/** Runs every waiting job with one worker at concurrency 1 and returns the ids in the order they ran. */
async function runAll(expected: number): Promise<string[]> {
  const order: string[] = [];
  const connection = createRedis(h.config, 'worker');
  const worker = new Worker(INGEST_QUEUE, async (j) => void order.push(j.id!), { connection, prefix: queuePrefix(h.prefix), concurrency: 1 });
  try {
    await waitFor('every job to run', async () => (order.length >= expected ? true : undefined), { timeoutMs: 15_000, describe: () => `${order.length} ran` });
  } finally {
    await worker.close();
    await connection.quit();
  }
  return order;
}

const idOf = (d: ExtractSourceJob) => `${d.kbId}.${d.documentId}.r${d.run}`;

describe('fair share of the ingest queue between workspaces', () => {
  it("runs another workspace's first job before a backlog, and each workspace's jobs in order", async () => {
    const flood = Array.from({ length: 8 }, () => job('ws_flood'));
    await queue.enqueue(flood);
    const b = job('ws_b');
    const c = [job('ws_c'), job('ws_c')];
    await queue.enqueue([b]);
    await queue.enqueue(c);

    const order = await runAll(11);
    // Round by round: flood, b, c; flood, c; then the rest of the flood.
    expect(order.indexOf(idOf(b))).toBeLessThanOrEqual(2);
    expect(order.indexOf(idOf(c[0]!))).toBeLessThanOrEqual(2);
    expect(order.indexOf(idOf(c[1]!))).toBeLessThanOrEqual(4);
    expect(order.filter((id) => id.startsWith('kb_ws_flood.'))).toEqual(flood.map(idOf));
    expect(order.filter((id) => id.startsWith('kb_ws_c.'))).toEqual(c.map(idOf));
  });

  it('starts the numbering again once the queue has drained', async () => {
    await queue.enqueue([job('ws_again')]);
    const jobs = await h.queue.getJobs(['prioritized'], 0, -1);
    expect(jobs.map((j) => j.opts.priority)).toEqual([1]);
    await runAll(1);
  });

  it('gives a workspace that joins late a place right after the round being served', async () => {
    await queue.enqueue(Array.from({ length: 6 }, () => job('ws_early')));
    const late = job('ws_late');
    await queue.enqueue([late]);
    const waiting = await h.queue.getJobs(['prioritized'], 0, -1);
    const priority = (id: string) => waiting.find((j) => j.id === id)!.opts.priority!;
    expect(priority(idOf(late))).toBe(1);
    expect(Math.max(...waiting.map((j) => j.opts.priority!))).toBe(6);
    await runAll(7);
  });
});
