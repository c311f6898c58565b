import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/runtime/logger.js';
import { extractSourceJobId, type ExtractSourceJob } from '../../shared/queue/jobs.js';
import { createProcessor } from '../../worker/jobs/processor.js';
import { buildActiveIndexOnce, reconcile } from '../../worker/reconciler.js';
import { call, failSource, kbSnapshot, readySource } from '../api/support.js';
import { extractInSandbox } from '../../worker/sandbox/sandbox.js';
import { bullSourceQueue } from '../../shared/queue/jobs.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { guardStubs, startCanary, type Canary } from '../helpers/canary-server.js';
import { waitFor } from '../helpers/wait.js';
import { createKbWith, startFailingConsumer, startTestWorker, waitForDocument, waitForJobState } from '../helpers/worker-harness.js';
import { fetchUrl } from '../../worker/fetch/fetch-url.js';
import { toStoredChunks } from '../../shared/schemas/chunk.js';
import type { FinishReport } from '../../shared/store/kb-store.js';
import { outboxEvents } from '../helpers/outbox.js';

let h: Harness;
let key: string;
let canary: Canary;

beforeAll(async () => {
  h = await createHarness({ JOB_ATTEMPTS: '2', JOB_BACKOFF_MS: '50' });
  key = await h.key('ws_consistency');
  canary = await startCanary();
});
afterAll(async () => {
  await canary.close();
  await h.close();
});

const silent = createLogger('silent');
const limits = { timeoutMs: 20_000, memoryMb: 1024, maxTextChars: 1_000_000, maxPdfPages: 100 };

/** A processor wired like the worker's, but called directly. */
function processor() {
  const stubs = guardStubs(canary);
  return createProcessor({
    config: h.config,
    kbs: h.store.kbs,
    queue: bullSourceQueue(h.queue, 2, 50),
    logger: silent,
    fetch: (url) => fetchUrl(url, stubs.opts({ maxBytes: h.config.MAX_FILE_BYTES, timeoutMs: 3_000 })),
    extract: (bytes, hints) => extractInSandbox(bytes, hints, limits),
  });
}

const fakeJob = (data: ExtractSourceJob): Job => ({ id: extractSourceJobId(data), data, attemptsMade: 0, opts: { attempts: 2 } }) as unknown as Job;

describe('idempotent and conditional write-back', () => {
  it('leaves the same state when a job runs twice, one after the other', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.append('knowledge_base_files', new Blob(['<h1>Twice</h1><p>Same result.</p>']), 'twice.html'));
    const job = fakeJob({ workspaceId: 'ws_consistency', kbId, documentId: docs[0]!, run: 1 });
    const run = processor();
    expect(await run(job)).toEqual({ status: 'ready' });
    const first = await kbSnapshot(h, kbId);
    expect(await run(job)).toMatchObject({ status: 'skipped' });
    expect(await kbSnapshot(h, kbId)).toEqual(first);
  });

  it('writes once when two runs of the same job race', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['racing text'])));
    const job = fakeJob({ workspaceId: 'ws_consistency', kbId, documentId: docs[0]!, run: 1 });
    const results = await Promise.all([processor()(job), processor()(job)]);
    expect(results.filter((r) => r.status === 'ready').length).toBeGreaterThanOrEqual(1);
    const meta = await h.store.kbs.getMeta(kbId);
    expect(meta?.sourceCounts).toEqual({ pending: 0, processing: 0, ready: 1, failed: 0 });
  });

  it('refuses the finish and progress of an attempt whose source another attempt of the same run has claimed since', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['claimed twice'])));
    const doc = docs[0]!;
    const now = new Date().toISOString();
    const ready = { status: 'ready' as const, text: 'late', truncated: false };
    expect((await h.store.kbs.startSourceReport({ kbId: kbId, documentId: doc, run: 1 }, { now: now, claim: 'lock-a' })).result).toBe('ok');
    // The job stalled and another worker took it over under a new lock token.
    expect((await h.store.kbs.startSourceReport({ kbId: kbId, documentId: doc, run: 1 }, { now: now, claim: 'lock-b' })).result).toBe('ok');
    expect(await h.store.kbs.setProgress({ kbId: kbId, documentId: doc, run: 1 }, { bytesDone: 1, bytesTotal: 2 }, 'lock-a')).toBe('stale');
    expect((await h.store.kbs.finishSourceReport({ kbId: kbId, documentId: doc, run: 1 }, ready, { now: now, claim: 'lock-a' })).result).toBe('stale');
    expect((await h.store.kbs.getSource(kbId, doc))?.status).toBe('processing');
    expect((await h.store.kbs.finishSourceReport({ kbId: kbId, documentId: doc, run: 1 }, { ...ready, text: 'current' }, { now: now, claim: 'lock-b' })).result).toBe('ok');
    expect(await h.redis.get(h.store.keys.text(kbId, doc))).toBe('current');
    expect(await h.redis.hexists(h.store.keys.source(kbId, doc), 'claim')).toBe(0);
  });

  it('tells an attempt whose finish is sent again (its reply lost in a failover) that it was written, and writes nothing twice', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['finished twice'])));
    const ref = { kbId, documentId: docs[0]!, run: 1 };
    const now = new Date().toISOString();
    expect((await h.store.kbs.startSourceReport(ref, { now, claim: 'lock-a' })).result).toBe('ok');
    const first = await h.store.kbs.finishSourceReport(ref, { status: 'ready', text: 'first', truncated: false }, { now, claim: 'lock-a' });
    expect(first.result).toBe('ok');
    const rev = await h.redis.hget(h.store.keys.kb(kbId), 'rev');
    // The same script again, as a client resends it after a failover: recognised, not applied, not refused.
    expect(await h.store.kbs.finishSourceReport(ref, { status: 'ready', text: 'second', truncated: false }, { now, claim: 'lock-a' })).toEqual({ result: 'repeated' });
    expect(await h.redis.get(h.store.keys.text(kbId, ref.documentId))).toBe('first');
    expect(await h.redis.hget(h.store.keys.kb(kbId), 'rev')).toBe(rev);
    // Another attempt of the run, or an attempt without a claim, still learns only that the source has ended.
    expect((await h.store.kbs.finishSourceReport(ref, { status: 'ready', text: 'other', truncated: false }, { now, claim: 'lock-b' })).result).toBe('ready');
    expect((await h.store.kbs.finishSourceReport(ref, { status: 'ready', text: 'other', truncated: false }, { now })).result).toBe('ready');
    expect(await h.redis.get(h.store.keys.text(kbId, ref.documentId))).toBe('first');
  });

  it('adds one job when the same run of a source is enqueued twice', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['enqueued twice'])));
    const data = { workspaceId: 'ws_consistency', kbId, documentId: docs[0]!, run: 1 };
    const before = await h.queue.getJobCounts('prioritized');
    await bullSourceQueue(h.queue, 2, 50).enqueue([data, data]);
    expect(await h.queue.getJobCounts('prioritized')).toEqual(before);
    expect((await h.queue.getPrioritized()).filter((j) => j.id === extractSourceJobId(data))).toHaveLength(1);
  });

  it('ends 50 sources of one knowledge base ready, each written once and the knowledge base settled once, when their 50 jobs run at once', async () => {
    const { kbId } = await createKbWith(h, key, () => undefined);
    // Fifty requests at once, each adding one source, then fifty jobs at once.
    const added = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const form = new FormData();
        form.set('knowledge_base_texts', JSON.stringify([`parallel text ${i}`]));
        const res = await call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}`, { key, body: form });
        expect(res.status).toBe(200);
        return ((res.body as { files: { documentId: string; content: string }[] }).files).find((f) => f.content === `parallel text ${i}`)!.documentId;
      }),
    );
    expect(new Set(added).size).toBe(50);
    const results = await Promise.all(added.map((documentId, i) => processor()(fakeJob({ workspaceId: 'ws_consistency', kbId, documentId, run: 1 }), `lock-${i}`)));
    expect(results.every((r) => r.status === 'ready')).toBe(true);
    // No relay runs here: the events the finishes wrote are all in the outbox, each once.
    const events = await outboxEvents(h.store, kbId);
    expect(events.filter((e) => e.type === 'source.ready').map((e) => e.data.documentId).sort()).toEqual([...added].sort());
    expect(events.filter((e) => e.type === 'knowledge_base.settled')).toHaveLength(1);
    const meta = await h.store.kbs.getMeta(kbId);
    expect(meta?.sourceCounts).toEqual({ pending: 0, processing: 0, ready: 50, failed: 0 });
    const list = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key });
    const files = (list.body as { files: { documentId: string; status: string }[] }).files;
    expect(files.map((f) => f.documentId).sort()).toEqual([...added].sort());
    expect(files.every((f) => f.status === 'ready')).toBe(true);
    for (const [i, documentId] of added.entries()) expect(await h.redis.get(h.store.keys.text(kbId, documentId))).toBe(`parallel text ${i}`);
  });

  it('refuses a job whose workspace does not own the knowledge base', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['mine'])));
    const forged = fakeJob({ workspaceId: 'ws_other', kbId, documentId: docs[0]!, run: 1 });
    expect(await processor()(forged)).toEqual({ status: 'skipped', reason: 'gone' });
    expect((await h.store.kbs.getSource(kbId, docs[0]!))?.status).toBe('pending');
  });

  it('claims a source in one script that replies with its record and the chunking settings, and refuses another workspace without writing', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => {
      f.set('knowledge_base_texts', JSON.stringify(['claimed and read']));
      f.set('chunk_max_tokens', '100');
      f.set('chunk_overlap_tokens', '10');
    });
    const ref = { kbId, documentId: docs[0]!, run: 1 };
    const now = new Date().toISOString();
    const revBefore = (await h.store.kbs.getMeta(kbId))?.rev;
    expect(await h.store.kbs.startSourceReport(ref, { now, claim: 'lock-x', workspaceId: 'ws_other' })).toEqual({ result: 'gone' });
    expect((await h.store.kbs.getSource(kbId, docs[0]!))?.status).toBe('pending');
    expect((await h.store.kbs.getMeta(kbId))?.rev).toBe(revBefore);

    const start = await h.store.kbs.startSourceReport(ref, { now, claim: 'lock-x', workspaceId: 'ws_consistency' });
    expect(start.result).toBe('ok');
    expect(start.chunking).toEqual({ maxTokens: 100, overlapTokens: 10 });
    expect(start.source).toEqual(await h.store.kbs.getSource(kbId, docs[0]!));
    expect(start.source).toMatchObject({ documentId: docs[0], type: 'text', content: 'claimed and read', status: 'processing', updatedAt: now, run: 1 });
    expect(await h.redis.hget(h.store.keys.source(kbId, docs[0]!), 'claim')).toBe('lock-x');
    // A run that has ended is refused with its status, and its record is not sent.
    await h.store.kbs.finishSourceReport(ref, { status: 'ready', text: 'done', truncated: false }, { now, claim: 'lock-x' });
    expect(await h.store.kbs.startSourceReport(ref, { now, claim: 'lock-y', workspaceId: 'ws_consistency' })).toEqual({ result: 'ready' });
  });

  it('trims change feed events past retention on a finish, keeping the newest dropped as the floor, and trims nothing within it', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['first of three', 'second of three', 'third of three'])));
    const { createStore } = await import('../../shared/store/index.js');
    const store = createStore(h.redis, { prefix: h.prefix, blobTtlSeconds: 60, changes: { retentionMs: 300, maxEvents: 1000 } });
    const finish = async (documentId: string): Promise<void> => {
      const ref = { kbId, documentId, run: 1 };
      const now = new Date().toISOString();
      expect((await store.kbs.startSourceReport(ref, { now })).result).toBe('ok');
      const chunks = toStoredChunks('hello', [{ index: 0, text: 'hello', charStart: 0, charEnd: 5, tokens: 2, headings: [] }]);
      expect((await store.kbs.finishSourceReport(ref, { status: 'ready', text: 'hello', chunks, truncated: false }, { now })).result).toBe('ok');
    };
    const stream = h.store.keys.changes(kbId);
    const ids = async (): Promise<string[]> => ((await h.redis.xrange(stream, '-', '+')) as [string, string[]][]).map(([id]) => id);
    await finish(docs[0]!);
    await finish(docs[1]!);
    const kept = await ids();
    expect(kept).toHaveLength(2);
    expect(await h.redis.hget(h.store.keys.changesInfo(kbId), 'floor')).toBeNull();
    await new Promise((r) => setTimeout(r, 350));
    await finish(docs[2]!);
    const after = await ids();
    expect(after).toHaveLength(1);
    expect(after[0]! > kept[1]!).toBe(true);
    expect(await h.redis.hget(h.store.keys.changesInfo(kbId), 'floor')).toBe(kept[1]);
  });

  it('writes nothing and leaves only its feed (one knowledge_base.deleted, expiring) and its outbox (that event, expiring) when the knowledge base is deleted mid-flight', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_urls', JSON.stringify(['http://public.test/hang'])));
    const job = fakeJob({ workspaceId: 'ws_consistency', kbId, documentId: docs[0]!, run: 1 });
    const running = processor()(job).catch((err: unknown) => err);
    // Wait until the source is claimed, then delete while the fetch hangs: the delete is mid-flight.
    await waitFor('the hanging fetch to reach the origin', () => canary.requests.some((r) => r.path === '/hang'));
    expect((await h.store.kbs.getSource(kbId, docs[0]!))?.status).toBe('processing');
    const del = await h.app.request(`/v1/knowledge-bases/${kbId}`, { method: 'DELETE', headers: { 'X-API-Key': key } });
    expect(del.status).toBe(204);
    await running;
    const stream = h.store.keys.changes(kbId);
    const info = h.store.keys.changesInfo(kbId);
    const outbox = h.store.keys.outbox(kbId);
    const outboxInfo = h.store.keys.outboxInfo(kbId);
    const left = await kbSnapshot(h, kbId);
    expect(Object.keys(left).sort()).toEqual([stream, info, outbox, outboxInfo].sort());
    expect((left[stream] as [string, string[]][]).map(([, fields]) => fields.slice(0, 2))).toEqual([['k', 'x']]);
    // The delete's knowledge_base.changed waits for the relay (none runs here), even though the knowledge base is gone.
    expect((await outboxEvents(h.store, kbId)).map((e) => e.type)).toEqual(['knowledge_base.changed']);
    for (const k of [stream, info, outbox, outboxInfo]) expect(await h.redis.ttl(k)).toBeGreaterThan(0);
  });
});

describe('reconciler', () => {
  describe('a source that a torn write left ended but still active (a Redis crash mid-AOF write)', () => {
    const PAGE = '# Opening hours\n\nWe open at nine.\n\n## Holidays\n\nClosed on public holidays.\n';
    const deps = () => ({ redis: h.redis, kbs: h.store.kbs, queue: h.queue, sourceQueue: bullSourceQueue(h.queue, 2, 50), logger: silent, processingDeadlineMs: 60_000 });
    const counts = async (kbId: string) => (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).body.sourceCounts;

    /** Two ready sources, then the state a torn finish leaves for the file: no Markdown or chunks, still active, counted processing. */
    async function tear(opts: { keepBytes: boolean; dropParts: boolean }): Promise<{ kbId: string; file: string; text: string }> {
      const { kbId, docs } = await createKbWith(h, key, (f) => {
        f.append('knowledge_base_files', new Blob([PAGE]), 'hours.md');
        f.set('knowledge_base_texts', JSON.stringify(['second source']));
      });
      const worker = await startTestWorker(h);
      try {
        for (const d of docs) expect((await waitForDocument(h, key, kbId, d)).status).toBe('ready');
      } finally {
        await worker.close();
      }
      const [text, file] = docs as [string, string];
      const k = h.store.keys;
      expect(await h.redis.llen(k.chunks(kbId, file))).toBeGreaterThan(0);
      if (opts.dropParts) await h.redis.del(k.markdown(kbId, file), k.chunks(kbId, file));
      if (opts.keepBytes) await h.redis.set(k.blob(kbId, file), PAGE);
      await h.redis.zadd(k.active(kbId), Date.now(), file);
      await h.redis.hset(k.source(kbId, file), 'claim', 'a-lock-token:1');
      await h.redis.hincrby(k.kb(kbId), 'n:ready', -1);
      await h.redis.hincrby(k.kb(kbId), 'n:processing', 1);
      expect(await counts(kbId)).toEqual({ pending: 0, processing: 1, ready: 1, failed: 0 });
      return { kbId, file, text };
    }

    it('runs a ready file source without its chunks again, from its kept bytes, and recounts the knowledge base', async () => {
      const { kbId, file } = await tear({ keepBytes: true, dropParts: true });
      const report = await reconcile(deps());
      expect(report.repaired).toBe(1);
      expect(await h.store.kbs.getSource(kbId, file)).toMatchObject({ status: 'pending', run: 2 });
      expect(await counts(kbId)).toEqual({ pending: 1, processing: 0, ready: 1, failed: 0 });
      const worker = await startTestWorker(h);
      try {
        expect(await waitForDocument(h, key, kbId, file)).toMatchObject({ status: 'ready', text: expect.stringContaining('Closed on public holidays.') });
      } finally {
        await worker.close();
      }
      const chunks = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/documents/${file}/chunks`, { key });
      expect(chunks.status).toBe(200);
      expect(chunks.body.data.length).toBeGreaterThan(0);
      expect(await counts(kbId)).toEqual({ pending: 0, processing: 0, ready: 2, failed: 0 });
      expect(await h.redis.zscore(h.store.keys.active(kbId), file)).toBeNull();
    }, 60_000); // two worker starts, each with a sandbox child: slow on a loaded 2-core machine

    it('fails such a source as internal when its uploaded bytes are gone, and recounts the knowledge base', async () => {
      const { kbId, file } = await tear({ keepBytes: false, dropParts: true });
      expect((await reconcile(deps())).repaired).toBe(1);
      expect(await h.store.kbs.getSource(kbId, file)).toMatchObject({ status: 'failed', error: { code: 'internal', message: expect.stringMatching(/upload it again/) } });
      expect(await counts(kbId)).toEqual({ pending: 0, processing: 0, ready: 1, failed: 1 });
      expect(await h.redis.zscore(h.store.keys.active(kbId), file)).toBeNull();
    });

    it('only recounts when the ended source is whole, keeping its text', async () => {
      const { kbId, file } = await tear({ keepBytes: false, dropParts: false });
      const before = (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/documents/${file}`, { key })).body;
      expect((await reconcile(deps())).repaired).toBe(1);
      const after = (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/documents/${file}`, { key })).body;
      expect(after).toMatchObject({ status: 'ready', text: before.text });
      expect(await counts(kbId)).toEqual({ pending: 0, processing: 0, ready: 2, failed: 0 });
      expect((await reconcile(deps())).repaired, 'a second pass finds nothing to mend').toBe(0);
    });
  });

  it('leaves a source that ended after the index was read as it is: no repair, no recount, no new revision', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['ended meanwhile', 'second'])));
    const [ended] = docs as [string];
    // The index as the reconciler read it, before the worker ended the source (which took it out).
    const stale = await h.store.kbs.activeSources(kbId);
    expect(stale.map((a) => a.documentId)).toContain(ended);
    await processor()(fakeJob({ workspaceId: 'ws_consistency', kbId, documentId: ended, run: 1 }), 'token-1');
    expect(await h.store.kbs.getSource(kbId, ended)).toMatchObject({ status: 'ready' });
    const before = await h.store.kbs.getMeta(kbId);
    const kbs = new Proxy(h.store.kbs, {
      get: (target, prop, receiver) => (prop === 'activeSources' ? async () => stale : Reflect.get(target, prop, receiver)),
    });
    const report = await reconcile({ redis: h.redis, kbs, queue: h.queue, sourceQueue: bullSourceQueue(h.queue, 2, 50), logger: silent, processingDeadlineMs: 60_000 });
    expect(report.repaired).toBe(0);
    expect(await h.store.kbs.getMeta(kbId)).toEqual(before);
    expect(await h.store.kbs.repairSource(kbId, ended, new Date().toISOString())).toEqual({ kind: 'unlisted' });
  });

  it('re-enqueues a pending source whose job is gone, and the worker finishes it', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['lost job'])));
    const data = { workspaceId: 'ws_consistency', kbId, documentId: docs[0]!, run: 1 };
    await (await h.queue.getJob(extractSourceJobId(data)))!.remove();
    expect(await h.queue.getJob(extractSourceJobId(data))).toBeUndefined();

    const report = await reconcile({
      redis: h.redis,
      kbs: h.store.kbs,
      queue: h.queue,
      sourceQueue: bullSourceQueue(h.queue, 2, 50),
      logger: silent,
      processingDeadlineMs: 60_000,
    });
    expect(report.requeued).toBeGreaterThanOrEqual(1);
    expect(await h.queue.getJob(extractSourceJobId(data))).toBeDefined();
    const worker = await startTestWorker(h);
    try {
      expect((await waitForDocument(h, key, kbId, docs[0]!)).text).toBe('lost job');
    } finally {
      await worker.close();
    }
  });

  it('ends a source stuck in processing past the deadline as failed/timeout', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['stuck'])));
    expect((await h.store.kbs.startSourceReport({ kbId: kbId, documentId: docs[0]!, run: 1 }, { now: new Date().toISOString() })).result).toBe('ok');
    const deps = { redis: h.redis, kbs: h.store.kbs, queue: h.queue, sourceQueue: bullSourceQueue(h.queue, 2, 50), logger: silent, processingDeadlineMs: 60_000 };
    await reconcile(deps, Date.now());
    expect((await h.store.kbs.getSource(kbId, docs[0]!))?.status).toBe('processing');
    const report = await reconcile(deps, Date.now() + 61_000);
    expect(report.timedOut).toBeGreaterThanOrEqual(1);
    // The webhook events of a source the reconciler ends are written like any other's: by its finish script.
    const events = await outboxEvents(h.store, kbId);
    expect(events.map((e) => e.data)).toContainEqual({ kbId, documentId: docs[0], status: 'failed', error: expect.objectContaining({ code: 'timeout' }) });
    const source = await h.store.kbs.getSource(kbId, docs[0]!);
    expect(source).toMatchObject({ status: 'failed', error: { code: 'timeout' } });
  });

  it('re-enqueues a pending source whose job failed before it claimed the source, and the worker finishes it', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['claim never happened'])));
    const data = { workspaceId: 'ws_consistency', kbId, documentId: docs[0]!, run: 1 };
    const jobId = extractSourceJobId(data);
    // The job fails on every attempt before the processor claims the source (Redis failing at that moment).
    const failing = startFailingConsumer(h);
    try {
      await waitForJobState(h, jobId, 'failed');
    } finally {
      await failing.close();
    }
    expect((await h.store.kbs.getSource(kbId, docs[0]!))?.status).toBe('pending');

    const deps = { redis: h.redis, kbs: h.store.kbs, queue: h.queue, sourceQueue: bullSourceQueue(h.queue, 2, 50), logger: silent, processingDeadlineMs: 60_000 };
    const report = await reconcile(deps);
    expect(report.requeued).toBeGreaterThanOrEqual(1);
    expect(await (await h.queue.getJob(jobId))?.getState()).not.toBe('failed');
    const worker = await startTestWorker(h);
    try {
      expect((await waitForDocument(h, key, kbId, docs[0]!)).text).toBe('claim never happened');
    } finally {
      await worker.close();
    }
  });

  it('ends a pending source whose job keeps failing past the deadline as failed/internal', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['given up'])));
    const jobId = extractSourceJobId({ workspaceId: 'ws_consistency', kbId, documentId: docs[0]!, run: 1 });
    const failing = startFailingConsumer(h);
    try {
      await waitForJobState(h, jobId, 'failed');
    } finally {
      await failing.close();
    }
    const deps = { redis: h.redis, kbs: h.store.kbs, queue: h.queue, sourceQueue: bullSourceQueue(h.queue, 2, 50), logger: silent, processingDeadlineMs: 60_000 };
    const report = await reconcile(deps, Date.now() + 61_000);
    expect(report.abandoned).toBeGreaterThanOrEqual(1);
    expect(await h.store.kbs.getSource(kbId, docs[0]!)).toMatchObject({ status: 'failed', error: { code: 'internal' } });
  });

  it('ends a processing source whose job failed without ending it (stalled past its limit) as failed/internal at once', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['left processing'])));
    const jobId = extractSourceJobId({ workspaceId: 'ws_consistency', kbId, documentId: docs[0]!, run: 1 });
    // Claimed by an attempt that never wrote an outcome, then the job failed under it.
    expect((await h.store.kbs.startSourceReport({ kbId: kbId, documentId: docs[0]!, run: 1 }, { now: new Date().toISOString(), claim: 'lost-lock' })).result).toBe('ok');
    const failing = startFailingConsumer(h, 'job stalled more than allowable limit');
    try {
      await waitForJobState(h, jobId, 'failed');
    } finally {
      await failing.close();
    }
    const deps = { redis: h.redis, kbs: h.store.kbs, queue: h.queue, sourceQueue: bullSourceQueue(h.queue, 2, 50), logger: silent, processingDeadlineMs: 60_000 };
    const report = await reconcile(deps);
    expect(report.interrupted).toBeGreaterThanOrEqual(1);
    expect(await h.store.kbs.getSource(kbId, docs[0]!)).toMatchObject({ status: 'failed', error: { code: 'internal' } });
    expect((await h.store.kbs.getMeta(kbId))?.sourceCounts).toMatchObject({ processing: 0, failed: 1 });
  });

  it('keeps an index of active sources that follows each source from pending to its end', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['one', 'two'])));
    const ids = async (): Promise<string[]> => (await h.store.kbs.activeSources(kbId)).map((a) => a.documentId).sort();
    expect(await ids()).toEqual([...docs].sort());
    expect(await h.redis.zscore(h.store.keys.activeKbs(), kbId)).not.toBeNull();
    await failSource(h, kbId, docs[0]!);
    expect(await ids()).toEqual([docs[1]]);
    await call(h.app, 'POST', `/v1/knowledge-bases/${kbId}/documents/${docs[0]}/retry`, { key });
    expect(await ids()).toEqual([...docs].sort());
    await call(h.app, 'DELETE', `/v1/knowledge-bases/${kbId}`, { key });
    expect(await h.redis.exists(h.store.keys.active(kbId))).toBe(0);
  });

  it('drops a knowledge base with nothing active from the index, but only after the grace period', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['settled'])));
    await readySource(h, kbId, docs[0]!, 'settled');
    const deps = { redis: h.redis, kbs: h.store.kbs, queue: h.queue, sourceQueue: bullSourceQueue(h.queue, 2, 50), logger: silent, processingDeadlineMs: 60_000 };
    await reconcile(deps, Date.now());
    expect(await h.redis.zscore(h.store.keys.activeKbs(), kbId)).not.toBeNull();
    await reconcile(deps, Date.now() + 61_000);
    expect(await h.redis.zscore(h.store.keys.activeKbs(), kbId)).toBeNull();
  });

  it('builds the active index once from knowledge bases written before it existed', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['older data'])));
    const k = h.store.keys;
    // Two commands: the keys live in different hash slots.
    await h.redis.del(k.active(kbId));
    await h.redis.del(k.activeIndexBuilt());
    await h.redis.zrem(k.activeKbs(), kbId);
    expect(await buildActiveIndexOnce({ redis: h.redis, kbs: h.store.kbs, logger: silent })).toBeGreaterThanOrEqual(1);
    expect((await h.store.kbs.activeSources(kbId)).map((a) => a.documentId)).toEqual(docs);
    expect(await h.redis.zscore(k.activeKbs(), kbId)).not.toBeNull();
    expect(await buildActiveIndexOnce({ redis: h.redis, kbs: h.store.kbs, logger: silent })).toBe(0);
  });
});
