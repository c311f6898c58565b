import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullSourceQueue, extractSourceJobId, type ExtractSourceJob } from '../../shared/queue/jobs.js';
import { createLogger } from '../../shared/runtime/logger.js';
import { createProcessor } from '../../worker/jobs/processor.js';
import { call } from '../api/support.js';
import { extractInSandbox } from '../../worker/sandbox/sandbox.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { createKbWith } from '../helpers/worker-harness.js';

let h: Harness;
let key: string;
const WS = 'ws_job_names';

beforeAll(async () => {
  h = await createHarness();
  key = await h.key(WS);
});
afterAll(async () => h.close());

const limits = { timeoutMs: 20_000, memoryMb: 1024, maxTextChars: 1_000_000, maxPdfPages: 100 };

function processor() {
  return createProcessor({
    config: h.config,
    kbs: h.store.kbs,
    queue: bullSourceQueue(h.queue, 2, 50),
    logger: createLogger('silent'),
    fetch: () => Promise.reject(new Error('no fetch in this test')),
    extract: (bytes, hints) => extractInSandbox(bytes, hints, limits),
  });
}

/** A job as BullMQ hands it to the processor, under any name. */
const jobNamed = (name: string, data: object, id = 'names-job'): Job => ({ id, name, data, attemptsMade: 0, opts: { attempts: 2 } }) as unknown as Job;

describe('job names on the ingest queue', () => {
  it('still runs jobs queued under the names of an earlier version', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['queued before the upgrade'])));
    const data: ExtractSourceJob = { workspaceId: WS, kbId, documentId: docs[0]!, run: 1 };
    const run = processor();
    expect(await run(jobNamed('extract-source', data, extractSourceJobId(data)))).toEqual({ status: 'ready' });
    expect((await h.store.kbs.getSource(kbId, docs[0]!))?.status).toBe('ready');
    expect(await run(jobNamed('refresh-knowledge-base', { workspaceId: WS, kbId }))).toEqual({ status: 'ready', reason: '0 URL sources queued again' });
    const rechunk = await run(jobNamed('rechunk-knowledge-base', { workspaceId: WS, kbId, maxTokens: 64, overlapTokens: 0 }));
    expect(rechunk.reason).toMatch(/sources re-chunked$/);
  });

  it('refuses a job of a new name whose data has fields it does not know', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['forged'])));
    const forged = { workspaceId: WS, kbId, documentId: docs[0]!, run: 1, jobType: 'pdf', url: 'http://169.254.169.254/' };
    await expect(processor()(jobNamed('pdf', forged))).rejects.toThrow('invalid job data');
    await expect(processor()(jobNamed('pdf', { workspaceId: WS, kbId, documentId: docs[0]!, run: 1, jobType: 'exe' }))).rejects.toThrow('invalid job data');
  });

  it('names a retried source after its type and keeps its size in the job data', async () => {
    const html = '<!doctype html><html><head><title>Retry</title></head><body><p>Again.</p></body></html>';
    const { kbId, docs } = await createKbWith(h, key, (f) => f.append('knowledge_base_files', new Blob([html]), 'retry.html'));
    const documentId = docs[0]!;
    await h.queue.remove(`${kbId}.${documentId}.r1`);
    // A timeout keeps a file's bytes, so it can be retried.
    const now = new Date().toISOString();
    const ref = { kbId, documentId, run: 1 };
    expect((await h.store.kbs.startSourceReport(ref, { now })).result).toBe('ok');
    const failed = { status: 'failed' as const, error: { code: 'timeout' as const, message: 'too slow' }, keepBlob: true };
    expect((await h.store.kbs.finishSourceReport(ref, failed, { now })).result).toBe('ok');
    const res = await call(h.app, 'POST', `/v1/knowledge-bases/${kbId}/documents/${documentId}/retry`, { key });
    expect(res.status, res.text).toBe(202);
    const job = await h.queue.getJob(`${kbId}.${documentId}.r2`);
    expect(job?.name).toBe('html');
    expect(job?.data).toEqual({ workspaceId: WS, kbId, documentId, run: 2, jobType: 'html', sizeBytes: Buffer.byteLength(html) });
  });
});
