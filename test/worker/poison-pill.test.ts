import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractSourceJobId } from '../../shared/queue/jobs.js';
import type { RunningWorker } from '../../worker/main.js';
import { buildDocx } from '../fixtures/docx.js';
import { buildPdf } from '../fixtures/pdf.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { createKbWith, startTestWorker, waitForDocument, waitForJobState } from '../helpers/worker-harness.js';

const ATTEMPTS = 3;
const TEST_CHILD = fileURLToPath(new URL('../helpers/sandbox-test-child.ts', import.meta.url));

let h: Harness;
let key: string;
let worker: RunningWorker;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'poison-pill-'));
  h = await createHarness({ JOB_ATTEMPTS: String(ATTEMPTS), JOB_BACKOFF_MS: '50', WORKER_CONCURRENCY: '2' });
  key = await h.key('ws_poison');
  // Production extraction, except that bytes reading `signal:...` make the child kill itself.
  worker = await startTestWorker(h, { sandbox: { childModule: TEST_CHILD } });
});
afterAll(async () => {
  await worker?.close();
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a file that kills its extraction child every time', () => {
  it(`ends failed with the signal after exactly JOB_ATTEMPTS (${ATTEMPTS}) children, while the sources beside it end ready`, async () => {
    const log = join(dir, 'segv.log');
    const { kbId, docs } = await createKbWith(h, key, (form) => {
      form.append('knowledge_base_files', new Blob([`signal:SIGSEGV:${log}`]), 'poison.txt');
      form.append('knowledge_base_files', new Blob([buildPdf({ pages: ['Tyres are checked every spring.'] })]), 'tyres.pdf');
      form.append('knowledge_base_files', new Blob([buildDocx([{ para: 'Brakes are bled every autumn.' }])]), 'brakes.docx');
      form.append('knowledge_base_files', new Blob(['Chains are oiled every month.']), 'chains.txt');
      form.set('knowledge_base_texts', JSON.stringify(['Lights are tested every week.']));
    });
    expect(docs).toHaveLength(5);

    const ended = await Promise.all(docs.map((id) => waitForDocument(h, key, kbId, id, 60_000)));
    const poison = ended.find((d) => d.content === 'poison.txt')!;
    const others = ended.filter((d) => d !== poison);
    expect(poison).toMatchObject({ status: 'failed', error: { code: 'internal', message: expect.stringContaining('SIGSEGV') } });
    expect(others.map((d) => [d.content, d.status, d.error?.code])).toEqual(others.map((d) => [d.content, 'ready', undefined]));
    for (const words of ['Tyres are checked', 'Brakes are bled', 'Chains are oiled', 'Lights are tested']) {
      expect(others.some((d) => d.text?.includes(words)), words).toBe(true);
    }

    // The job is failed for good: BullMQ runs it no more, so the counts below are final.
    const jobId = extractSourceJobId({ workspaceId: 'ws_poison', kbId, documentId: poison.documentId, run: 1 });
    await waitForJobState(h, jobId, 'failed');
    const job = await h.queue.getJob(jobId);
    expect(job?.attemptsMade).toBe(ATTEMPTS);
    expect(job?.failedReason).toContain('SIGSEGV');
    expect(job?.stacktrace, 'no stack kept in the job (Bull Board shows it)').toEqual([]);
    const children = readFileSync(log, 'utf8').trim().split('\n');
    expect(children).toHaveLength(ATTEMPTS);
    expect(new Set(children).size, 'each attempt ran in a fresh child').toBe(ATTEMPTS);
  }, 120_000);
});
