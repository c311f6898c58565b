import { readFile } from 'node:fs/promises';
import { Queue } from 'bullmq';
import { INGEST_QUEUE, queuePrefix } from '../../shared/queue/jobs.js';
import { BenchService, BENCH_PREFIX } from './bench-service.js';
import { waitFor } from './bench-util.js';

/** One run of the fairness measurement. */
export interface FairnessRun {
  /** From the flood's PATCH until its last source settled, seconds. */
  floodSeconds: number;
  /** For each other workspace's text, from its POST until it was ready, seconds. */
  textSeconds: number[];
  /** The longest single extraction job of the run (BullMQ processedOn to finishedOn), seconds. */
  longestJobSeconds: number;
  /** For each text, how many of the flood's jobs started before it: the fairness itself, apart from the machine's speed. */
  floodJobsBefore: number[];
}

/** How many other workspaces add one text each while the flood waits. */
export const OTHER_WORKSPACES = 3;

/**
 * One workspace PATCHes every file in one request (the flood); right after,
 * {@link OTHER_WORKSPACES} other workspaces each create a knowledge base with
 * one short text. Times the flood to its end and each text to ready, on one
 * worker process at `concurrency`. With `others: false` only the flood runs,
 * the throughput reference.
 */
export async function fairnessRun(svc: BenchService, files: { path: string; name: string }[], concurrency: number, others = true): Promise<FairnessRun> {
  // Fresh workspaces for every run: a second flood in the same workspace would take over the first
  // one's extractions of the same bytes and cost next to nothing.
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const floodWorkspace = `ws_flood_${run}`;
  const flood = await svc.keyFor(floodWorkspace);
  const otherKeys = await Promise.all(Array.from({ length: OTHER_WORKSPACES }, (_, i) => svc.keyFor(`ws_other_${i}_${run}`)));
  const blobs = await Promise.all(files.map(async (f) => ({ name: f.name, blob: new Blob([await readFile(f.path)]) })));
  const procs = await svc.startWorkers(1, concurrency);
  const queue = new Queue(INGEST_QUEUE, { connection: svc.redis, prefix: queuePrefix(BENCH_PREFIX) });
  try {
    const floodKb = await svc.createKb(flood);
    const started = performance.now();
    await svc.patch(
      floodKb,
      (form) => {
        for (const f of blobs) form.append('knowledge_base_files', f.blob, f.name);
      },
      flood,
    );
    const texts = others
      ? await Promise.all(
          otherKeys.map(async (key, i) => {
            const sent = performance.now();
            const kbId = await svc.createKb(key, [`Workspace ${i}: the clinic opens at nine.`]);
            await svc.settled(kbId, 1);
            return (performance.now() - sent) / 1000;
          }),
        )
      : [];
    await svc.settled(floodKb, files.length);
    const floodSeconds = (performance.now() - started) / 1000;
    let longest = 0;
    await waitFor(async () => (await queue.getActiveCount()) === 0, 30_000, 'the last job to be marked done');
    const done = await queue.getJobs(['completed', 'failed'], 0, -1);
    for (const job of done) {
      if (job.processedOn && job.finishedOn) longest = Math.max(longest, (job.finishedOn - job.processedOn) / 1000);
    }
    const floodStarts = done.filter((j) => j.data.workspaceId === floodWorkspace).map((j) => j.processedOn ?? 0);
    const floodJobsBefore = done
      .filter((j) => j.data.workspaceId !== floodWorkspace)
      .map((j) => floodStarts.filter((t) => t < (j.processedOn ?? 0)).length);
    await queue.clean(0, 100_000, 'completed');
    await queue.clean(0, 100_000, 'failed');
    return { floodSeconds, textSeconds: texts, longestJobSeconds: longest, floodJobsBefore };
  } finally {
    await queue.close();
    await svc.stopWorkers(procs);
  }
}
