import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractSourceJobId } from '../../shared/queue/jobs.js';
import type { RunningWorker } from '../../worker/main.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { createKbWith, startTestWorker, waitForDocument, waitForJobState } from '../helpers/worker-harness.js';

const TEST_CHILD = fileURLToPath(new URL('../helpers/sandbox-test-child.ts', import.meta.url));
const LOCK_MS = 1_000;
const SPIN_MS = 4_000;

let h: Harness;
let key: string;
let dir: string;
const workers: RunningWorker[] = [];
const stalled: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'blocking-parse-'));
  h = await createHarness({ JOB_ATTEMPTS: '3', JOB_BACKOFF_MS: '50' });
  key = await h.key('ws_blocking');
  // Two replicas with a lock far shorter than the parse: if the parse blocked the
  // process that holds the lock, the other replica would take the job as stalled.
  for (let i = 0; i < 2; i++) {
    const w = await startTestWorker(h, { lockDurationMs: LOCK_MS, stalledIntervalMs: LOCK_MS, sandbox: { childModule: TEST_CHILD } });
    w.worker.on('stalled', (jobId) => stalled.push(jobId));
    workers.push(w);
  }
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a parse that blocks its event loop for longer than the job lock', () => {
  it(`keeps the job's lock through a ${SPIN_MS / 1000} s synchronous parse (lock ${LOCK_MS / 1000} s, two workers): no stall, one parse, one write`, async () => {
    const log = join(dir, 'spins.log');
    const { kbId, docs } = await createKbWith(h, key, (form) => {
      form.append('knowledge_base_files', new Blob([`spin:${SPIN_MS}:${log}`]), 'slow.txt');
    });
    const [documentId] = docs as [string];

    const doc = await waitForDocument(h, key, kbId, documentId, 60_000);
    expect(doc).toMatchObject({ status: 'ready', text: `spun busy for ${SPIN_MS} ms` });

    const jobId = extractSourceJobId({ workspaceId: 'ws_blocking', kbId, documentId, run: 1 });
    await waitForJobState(h, jobId, 'completed');
    const job = await h.queue.getJob(jobId);
    expect(job?.attemptsStarted, 'the job was started once').toBe(1);
    expect(job?.stalledCounter, 'the job never stalled').toBe(0);
    expect(stalled, 'no worker saw a stalled job').toEqual([]);
    expect(readFileSync(log, 'utf8').trim().split('\n'), 'the file was parsed once').toHaveLength(1);
  }, 90_000);
});
