import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullSourceQueue, extractSourceJobId, TEXT_BATCH_MAX_SOURCES, textBatchJobId } from '../../shared/queue/jobs.js';
import { createLogger } from '../../shared/runtime/logger.js';
import type { KbStore } from '../../shared/store/kb-store.js';
import { createProcessor } from '../../worker/jobs/processor.js';
import { reconcile } from '../../worker/reconciler.js';
import { call } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { createKbWith } from '../helpers/worker-harness.js';

let h: Harness;
let key: string;
const WS = 'ws_text_batches';
const silent = createLogger('silent');

beforeAll(async () => {
  h = await createHarness();
  key = await h.key(WS);
});
afterAll(async () => h.close());

function processor(kbs: KbStore = h.store.kbs) {
  return createProcessor({
    config: h.config,
    kbs,
    queue: bullSourceQueue(h.queue, 2, 50),
    logger: silent,
    fetch: () => Promise.reject(new Error('no fetch in this test')),
    extract: () => Promise.reject(new Error('no extraction in this test')),
  });
}

/** The job as BullMQ hands it over, read back from the queue. */
async function queued(id: string, attemptsMade = 0): Promise<Job> {
  const job = await h.queue.getJob(id);
  expect(job, `job ${id}`).toBeDefined();
  return Object.assign(job!, { attemptsMade }) as Job;
}

const texts = (n: number, tag: string): string[] => Array.from({ length: n }, (_, i) => `${tag} note ${i}: the tide tables for the harbour, week ${i}.`);

const reconcileDeps = () => ({ redis: h.redis, kbs: h.store.kbs, queue: h.queue, sourceQueue: bullSourceQueue(h.queue, 2, 50), logger: silent, processingDeadlineMs: 60_000 });

describe('texts of one request run in batch jobs', () => {
  it('queues a request’s texts as jobs of at most 64 texts, named in their records but not shown', async () => {
    const count = TEXT_BATCH_MAX_SOURCES + 6;
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(texts(count, 'batch'))));
    expect(docs).toHaveLength(count);
    const first = await queued(textBatchJobId(kbId, docs[0]!));
    const second = await queued(textBatchJobId(kbId, docs[TEXT_BATCH_MAX_SOURCES]!));
    expect(first.name).toBe('texts');
    expect(first.data.sources.map((s: { documentId: string }) => s.documentId)).toEqual(docs.slice(0, TEXT_BATCH_MAX_SOURCES));
    expect(second.data.sources).toHaveLength(6);
    expect(first.data.sizeBytes).toBe(texts(count, 'batch').slice(0, TEXT_BATCH_MAX_SOURCES).reduce((n, t) => n + Buffer.byteLength(t), 0));
    // No job of their own.
    expect(await h.queue.getJob(extractSourceJobId({ workspaceId: WS, kbId, documentId: docs[1]!, run: 1 }))).toBeUndefined();
    expect((await h.store.kbs.getSource(kbId, docs[70 - 1]!))?.batchJob).toBe(second.id);
    const res = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key });
    expect(res.text).not.toContain('batchJob');

    const run = processor();
    expect(await run(first, first.id)).toEqual({ status: 'ready', reason: `${TEXT_BATCH_MAX_SOURCES} ready, 0 failed, 0 skipped of ${TEXT_BATCH_MAX_SOURCES} texts` });
    expect(await run(second, second.id)).toMatchObject({ status: 'ready' });
    const meta = await h.store.kbs.getMeta(kbId);
    expect(meta?.sourceCounts).toMatchObject({ ready: count, pending: 0, processing: 0, failed: 0 });
    const one = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/documents/${docs[65]!}`, { key });
    expect(one.body).toMatchObject({ status: 'ready', text: texts(count, 'batch')[65] });
  });

  it('queues a request’s texts first, then its URLs, then its files largest first, and lists them in request order', async () => {
    const page = (n: number): string => `<!doctype html><html><head><title>Page ${n}</title></head><body>${'<p>Opening hours of the archive.</p>'.repeat(n)}</body></html>`;
    const { kbId, docs } = await createKbWith(h, key, (f) => {
      f.set('knowledge_base_texts', JSON.stringify(['first text', 'second text']));
      f.set('knowledge_base_urls', JSON.stringify(['https://example.com/a']));
      f.append('knowledge_base_files', new Blob([page(1)]), 'small.html');
      f.append('knowledge_base_files', new Blob([page(400)]), 'large.html');
      f.append('knowledge_base_files', new Blob([page(40)]), 'medium.html');
    });
    const res = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key });
    const names = (res.body as { files: { content?: string; filename?: string }[] }).files.map((s) => s.filename ?? s.content);
    expect(names).toEqual(['first text', 'second text', 'https://example.com/a', 'small.html', 'large.html', 'medium.html']);
    const jobs = await Promise.all(
      [textBatchJobId(kbId, docs[0]!), ...docs.slice(2).map((documentId) => extractSourceJobId({ workspaceId: WS, kbId, documentId, run: 1 }))].map((id) => queued(id)),
    );
    const byTurn = [...jobs].sort((a, b) => a.opts.priority! - b.opts.priority!);
    expect(byTurn.map((j) => j.name)).toEqual(['texts', 'url', 'html', 'html', 'html']);
    expect(byTurn.slice(2).map((j) => j.data.documentId)).toEqual([docs[4], docs[5], docs[3]]);
  });

  it('gives a text alone in its request a job of its own, as before', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['alone'])));
    const job = await queued(extractSourceJobId({ workspaceId: WS, kbId, documentId: docs[0]!, run: 1 }));
    expect(job.name).toBe('text');
    expect((await h.store.kbs.getSource(kbId, docs[0]!))?.batchJob).toBeUndefined();
  });

  it('tries the batch again after a transient failure of one text, and the retry ends only what was left', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(texts(5, 'flaky'))));
    const flaky = docs[2]!;
    let failures = 0;
    // Redis refusing the finish script of one text's share of the batch, once: the others' is written.
    const kbs = new Proxy(h.store.kbs, {
      get: (target, prop, receiver) => {
        const value = Reflect.get(target, prop, receiver);
        if (prop !== 'finishTexts') return typeof value === 'function' ? value.bind(target) : value;
        return async (kbId: string, items: { documentId: string }[], ...rest: unknown[]) => {
          if (failures++ > 0) return (value as (...a: unknown[]) => unknown).call(target, kbId, items, ...rest);
          await (value as (...a: unknown[]) => Promise<unknown>).call(target, kbId, items.filter((i) => i.documentId !== flaky), ...rest);
          throw new Error('Connection is closed.');
        };
      },
    });
    const id = textBatchJobId(kbId, docs[0]!);
    const run = processor(kbs);
    const attempt = run(await queued(id, 0), 'token-1');
    await expect(attempt).rejects.toThrow();
    await expect(attempt).rejects.not.toBeInstanceOf(UnrecoverableError);
    expect((await h.store.kbs.getSource(kbId, flaky))?.status).toBe('processing');
    expect((await h.store.kbs.getMeta(kbId))?.sourceCounts).toMatchObject({ ready: 4, processing: 1 });

    expect(await run(await queued(id, 1), 'token-2')).toEqual({ status: 'ready', reason: '1 ready, 0 failed, 4 skipped of 5 texts' });
    const meta = await h.store.kbs.getMeta(kbId);
    expect(meta?.sourceCounts).toMatchObject({ ready: 5, processing: 0, pending: 0 });
    const chunks = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/documents/${flaky}/chunks?page=0&size=50`, { key });
    expect(chunks.status).toBe(200);
    expect((chunks.body as { data: unknown[] }).data, "one set of chunks, not two").toHaveLength(1);
  });

  it("writes each text of a batch once: a text another attempt claimed since is left to it, and a finish sent again is told it was written", async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(texts(4, 'fenced'))));
    const batch = docs.map((documentId) => ({ documentId, run: 1 }));
    const now = new Date().toISOString();
    const start = await h.store.kbs.startTexts(kbId, batch, { now, claim: 'lock-a', workspaceId: WS });
    if (start.result !== 'ok') throw new Error(`claim: ${start.result}`);
    expect(start.claims.map((c) => [c.result, c.source?.status])).toEqual(batch.map(() => ['ok', 'processing']));
    expect(await h.store.kbs.startTexts(kbId, batch, { now, claim: 'lock-a', workspaceId: 'ws_other' })).toEqual({ result: 'gone' });
    // The second text's job stalled and another worker took it over under a new lock token.
    expect((await h.store.kbs.startSourceReport({ kbId, ...batch[1]! }, { now, claim: 'lock-b' })).result).toBe('ok');
    const ended = batch.map((b, i) => ({ ...b, outcome: { status: 'ready' as const, text: `written ${i}`, truncated: false } }));
    const first = await h.store.kbs.finishTexts(kbId, ended, { now, claim: 'lock-a' });
    expect(first.map((r) => r.result)).toEqual(['ok', 'stale', 'ok', 'ok']);
    expect((await h.store.kbs.getSource(kbId, docs[1]!))?.status).toBe('processing');
    const rev = await h.redis.hget(h.store.keys.kb(kbId), 'rev');
    const events = (await h.store.outbox.read(kbId, 1000)).length;

    // The same scripts again, as a client resends them after a failover: recognised, not applied.
    const again = await h.store.kbs.finishTexts(kbId, ended.map((e) => ({ ...e, outcome: { ...e.outcome, text: 'again' } })), { now, claim: 'lock-a' });
    expect(again.map((r) => r.result)).toEqual(['repeated', 'stale', 'repeated', 'repeated']);
    expect(await h.redis.get(h.store.keys.text(kbId, docs[0]!))).toBe('written 0');
    expect(await h.redis.hget(h.store.keys.kb(kbId), 'rev')).toBe(rev);
    expect((await h.store.outbox.read(kbId, 1000)).length).toBe(events);
    expect((await h.store.kbs.getMeta(kbId))?.sourceCounts).toMatchObject({ ready: 3, processing: 1 });
  });

  it('fails a source that is not a text named in a batch added by hand, and refuses malformed batches', async () => {
    const html = '<!doctype html><html><head><title>Not a text</title></head><body><p>Page.</p></body></html>';
    const { kbId, docs } = await createKbWith(h, key, (f) => {
      f.set('knowledge_base_texts', JSON.stringify(['a text beside a file']));
      f.append('knowledge_base_files', new Blob([html]), 'page.html');
    });
    const [text, file] = docs as [string, string];
    const forged = { id: 'forged-batch', name: 'texts', attemptsMade: 0, opts: { attempts: 2 }, data: { workspaceId: WS, kbId, sources: [{ documentId: file, run: 1 }, { documentId: text, run: 1 }] } } as unknown as Job;
    expect(await processor()(forged, 'token-forged')).toMatchObject({ status: 'ready', reason: '1 ready, 1 failed, 0 skipped of 2 texts' });
    expect(await h.store.kbs.getSource(kbId, file)).toMatchObject({ status: 'failed', error: { code: 'internal' } });
    const tooMany = Array.from({ length: TEXT_BATCH_MAX_SOURCES + 1 }, () => ({ documentId: text, run: 1 }));
    for (const data of [{ workspaceId: WS, kbId, sources: tooMany }, { workspaceId: WS, kbId, sources: [] }, { workspaceId: WS, kbId, sources: [{ documentId: text, run: 1, url: 'x' }] }]) {
      await expect(processor()({ ...forged, data } as Job, 'token-x')).rejects.toThrow('invalid job data');
    }
  });

  it('the reconciler finds a pending text’s batch job, and queues it on its own once that job is gone', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(texts(3, 'lost'))));
    const id = textBatchJobId(kbId, docs[0]!);
    const own = (documentId: string) => extractSourceJobId({ workspaceId: WS, kbId, documentId, run: 1 });
    const before = await reconcile(reconcileDeps());
    expect(before.requeued, 'a waiting batch is left alone').toBe(0);

    await (await h.queue.getJob(id))!.remove();
    expect((await reconcile(reconcileDeps())).requeued).toBe(3);
    for (const d of docs) expect((await h.queue.getJob(own(d)))?.name).toBe('text');
    expect((await reconcile(reconcileDeps())).requeued, 'their own jobs are found on the next pass').toBe(0);

    const run = processor();
    for (const d of docs) expect(await run(await queued(own(d)), `token-${d}`)).toEqual({ status: 'ready' });
    expect((await h.store.kbs.getMeta(kbId))?.sourceCounts).toMatchObject({ ready: 3, pending: 0 });
  });
});
