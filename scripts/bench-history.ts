/**
 * Shows that Redis memory levels off however many jobs run: pushes jobs
 * through the ingest queue of a throwaway redis-server with the service's
 * job options (deterministic ids, the finished-job trimming of
 * `defaultJobOptions`), a trivial processor failing every `--fail-every`th
 * job for good, and prints `used_memory` after every `--step` jobs with the
 * sizes of the completed and failed sets and the event stream. Producing
 * pauses at each step until the queue is drained, so a figure is history
 * only, never a backlog. `--keep-all` adds the same jobs without trimming,
 * for comparison. Needs redis-server on PATH; about two minutes.
 *
 *   npm run bench:history [-- --jobs 200000 --step 10000 --fail-every 10 --keep-all]
 */
import { parseArgs } from 'node:util';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { bullSourceQueue, INGEST_QUEUE, JOB_HISTORY, queuePrefix, type ExtractSourceJob } from '../shared/queue/jobs.js';
import { startRedisServer } from '../test/helpers/redis-server.js';

const { values: opts } = parseArgs({
  options: {
    jobs: { type: 'string', default: '200000' },
    step: { type: 'string', default: '10000' },
    'fail-every': { type: 'string', default: '10' },
    'keep-all': { type: 'boolean', default: false },
  },
});
const JOBS = Number(opts.jobs);
const STEP = Number(opts.step);
const FAIL_EVERY = Number(opts['fail-every']);
const BATCH = 1_000;
const PREFIX = 'hist';
const MB = 1024 * 1024;
/** Far beyond any run of this script: nothing is trimmed. */
const KEEP_ALL = { completed: { age: 365 * 86_400, count: Number.MAX_SAFE_INTEGER }, failed: { age: 365 * 86_400, count: Number.MAX_SAFE_INTEGER } };

if (![JOBS, STEP, FAIL_EVERY].every((n) => Number.isInteger(n) && n > 0) || STEP % BATCH !== 0) {
  console.error(`--jobs, --step and --fail-every must be positive integers, --step a multiple of ${BATCH}`);
  process.exit(2);
}

const mb = (bytes: number): string => (bytes / MB).toFixed(1);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const data = (i: number): ExtractSourceJob => ({ workspaceId: 'ws_history', kbId: 'kb_history00000000000000', documentId: `doc_${String(i).padStart(21, '0')}`, run: 1 });

interface Sample {
  jobs: number;
  usedMemory: number;
  completed: number;
  failed: number;
  events: number;
}

async function run(url: string, trimmed: boolean): Promise<Sample[]> {
  const connection = new Redis(url, { maxRetriesPerRequest: null });
  const workerConnection = new Redis(url, { maxRetriesPerRequest: null });
  const prefix = queuePrefix(PREFIX);
  const queue = new Queue(INGEST_QUEUE, { connection, prefix });
  // The service's own enqueue path, so the job options are the real ones.
  const source = bullSourceQueue(queue, 5, 2_000, trimmed ? JOB_HISTORY : KEEP_ALL);
  let finished = 0;
  const worker = new Worker(
    INGEST_QUEUE,
    async (job) => {
      if (Number(String(job.data.documentId).slice(4)) % FAIL_EVERY === 0) throw new UnrecoverableError('corrupt: The file is damaged and could not be read');
      return { status: 'ready' };
    },
    { connection: workerConnection, prefix, concurrency: 100 },
  );
  worker.on('completed', () => (finished += 1));
  worker.on('failed', () => (finished += 1));

  const usedMemory = async (): Promise<number> => Number(/^used_memory:(\d+)/m.exec(await connection.info('memory'))?.[1]);
  const samples: Sample[] = [];
  const sample = async (jobs: number): Promise<void> => {
    const [usedMemoryNow, completed, failed, events] = await Promise.all([
      usedMemory(),
      connection.zcard(`${prefix}:${INGEST_QUEUE}:completed`),
      connection.zcard(`${prefix}:${INGEST_QUEUE}:failed`),
      connection.xlen(`${prefix}:${INGEST_QUEUE}:events`),
    ]);
    const s = { jobs, usedMemory: usedMemoryNow, completed, failed, events };
    samples.push(s);
    console.log(`${String(jobs).padStart(8)} jobs  used_memory ${mb(s.usedMemory).padStart(7)} MB  completed ${String(completed).padStart(7)}  failed ${String(failed).padStart(7)}  events ${String(events).padStart(6)}`);
  };

  await sample(0);
  const started = Date.now();
  for (let produced = 0; produced < JOBS; ) {
    const n = Math.min(BATCH, JOBS - produced);
    await source.enqueue(Array.from({ length: n }, (_, i) => data(produced + i)));
    produced += n;
    if (produced % STEP === 0 || produced === JOBS) {
      while (finished < produced) await sleep(20);
      await sample(produced);
    } else {
      // Keep a backlog of a few batches at most, so the worker never starves and memory stays history.
      while (produced - finished > 5 * BATCH) await sleep(10);
    }
  }
  console.log(`${JOBS} jobs in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  await Promise.all([connection.quit(), workerConnection.quit()]);
  return samples;
}

function summary(samples: Sample[]): void {
  const at = (jobs: number): Sample | undefined => samples.find((s) => s.jobs === jobs);
  const quarters = [0.25, 0.5, 0.75, 1].map((q) => Math.round((JOBS * q) / STEP) * STEP).filter((n, i, all) => n > 0 && all.indexOf(n) === i);
  console.log('\n| jobs | used_memory | completed kept | failed kept | events kept |');
  console.log('|---|---|---|---|---|');
  for (const n of quarters) {
    const s = at(n);
    if (s) console.log(`| ${n.toLocaleString('en-US')} | ${mb(s.usedMemory)} MB | ${s.completed.toLocaleString('en-US')} | ${s.failed.toLocaleString('en-US')} | ${s.events.toLocaleString('en-US')} |`);
  }
  const first = at(quarters[0]!);
  const last = at(quarters.at(-1)!);
  if (first && last) console.log(`\nfrom ${quarters[0]!.toLocaleString('en-US')} to ${quarters.at(-1)!.toLocaleString('en-US')} jobs: ${last.usedMemory >= first.usedMemory ? '+' : ''}${mb(last.usedMemory - first.usedMemory)} MB`);
}

async function main(): Promise<void> {
  const server = await startRedisServer();
  try {
    console.log(`${JOBS} jobs, one in ${FAIL_EVERY} failing; kept: completed ${JOB_HISTORY.completed.count} for ${JOB_HISTORY.completed.age / 3600} h, failed ${JOB_HISTORY.failed.count} for ${JOB_HISTORY.failed.age / 86_400} days\n`);
    summary(await run(server.url, true));
    if (opts['keep-all']) {
      console.log('\nThe same jobs without trimming:\n');
      summary(await run(server.url, false));
    }
  } finally {
    await server.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
