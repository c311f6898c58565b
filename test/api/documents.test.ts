import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toStoredChunks, type CutChunk as Chunk } from '../../shared/schemas/chunk.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { filePart, textsField } from '../helpers/multipart-body.js';
import { waitFor } from '../helpers/wait.js';
import { call, createKb, expectErrorBody, kbKeys } from './support.js';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws-documents');
});
afterAll(async () => h.close());

const MARKDOWN = '# Café guide\n\nOpening hours: 9–17 ☕.\n\n## Prices\n\n| item | € |\n| --- | --- |\n| tea | 2 |\n\nSee you 😀 soon.';

/** Chunks of MARKDOWN at its blocks, the second overlapping the first by a few characters. */
function chunksOf(md: string): Chunk[] {
  const cut = (from: number, to: number, index: number, headings: string[]): Chunk => ({
    index,
    text: md.slice(from, to),
    charStart: from,
    charEnd: to,
    tokens: Math.ceil((to - from) / 4),
    headings,
  });
  const prices = md.indexOf('## Prices');
  const see = md.indexOf('See you');
  return [cut(0, prices, 0, ['Café guide']), cut(prices - 5, see, 1, ['Café guide', 'Prices']), cut(see, md.length, 2, ['Café guide', 'Prices'])];
}

/** Marks a text source ready with Markdown and chunks the way the worker does. */
async function readyWithMarkdown(kbId: string, documentId: string): Promise<void> {
  const now = new Date().toISOString();
  expect((await h.store.kbs.startSourceReport({ kbId: kbId, documentId: documentId, run: 1 }, { now: now })).result).toBe('ok');
  const outcome = {
    status: 'ready' as const,
    text: 'Café guide\n\nOpening hours: 9–17 ☕.',
    markdown: MARKDOWN,
    chunks: toStoredChunks(MARKDOWN, chunksOf(MARKDOWN)),
    warnings: [{ code: 'truncated' as const, message: 'The text was cut at the limit.' }],
    truncated: true,
  };
  expect((await h.store.kbs.finishSourceReport({ kbId: kbId, documentId: documentId, run: 1 }, outcome, { now: now })).result).toBe('ok');
}

const docPath = (kbId: string, documentId: string, rest = ''): string => `/v1/knowledge-bases/${kbId}/documents/${documentId}${rest}`;

describe('GET a document as Markdown', () => {
  it('adds markdown with format=markdown and leaves the response unchanged without it', async () => {
    const kb = await createKb(h, key, 'Markdown', [textsField(['placeholder'])]);
    const doc = kb.files[0].documentId;
    await readyWithMarkdown(kb.kbId, doc);
    const plain = await call(h.app, 'GET', docPath(kb.kbId, doc), { key });
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty('markdown');
    expect(plain.body.text).toBe('Café guide\n\nOpening hours: 9–17 ☕.');
    expect(plain.body.warnings).toEqual([{ code: 'truncated', message: 'The text was cut at the limit.' }]);
    const asText = await call(h.app, 'GET', docPath(kb.kbId, doc, '?format=text'), { key });
    expect(asText.body).toEqual(plain.body);
    const md = await call(h.app, 'GET', docPath(kb.kbId, doc, '?format=markdown'), { key });
    expect(md.status).toBe(200);
    expect(md.body).toEqual({ ...plain.body, markdown: MARKDOWN });
  });

  it('answers markdown null while the source is not ready', async () => {
    const kb = await createKb(h, key, 'Pending', [textsField(['still pending'])]);
    const md = await call(h.app, 'GET', docPath(kb.kbId, kb.files[0].documentId, '?format=markdown'), { key });
    expect(md.body).toMatchObject({ status: 'pending', text: null, markdown: null });
  });

  it('returns 400 naming format for any other format', async () => {
    const kb = await createKb(h, key, 'Bad format', [textsField(['x'])]);
    const res = await call(h.app, 'GET', docPath(kb.kbId, kb.files[0].documentId, '?format=html'), { key });
    expectErrorBody(res, 400, '/v1/knowledge-bases', { fields: ['format'] });
  });
});

describe('GET the chunks of a document', () => {
  it('pages through chunks whose text is exactly the Markdown between charStart and charEnd', async () => {
    const kb = await createKb(h, key, 'Chunks', [textsField(['placeholder'])]);
    const doc = kb.files[0].documentId;
    await readyWithMarkdown(kb.kbId, doc);
    const first = await call(h.app, 'GET', docPath(kb.kbId, doc, '/chunks?page=0&size=2'), { key });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ page: 0, size: 2, totalCount: 3, totalPages: 2, hasNext: true, hasPrevious: false });
    const second = await call(h.app, 'GET', docPath(kb.kbId, doc, '/chunks?page=1&size=2'), { key });
    const all = [...first.body.data, ...second.body.data];
    expect(all.map((c: Chunk) => c.index)).toEqual([0, 1, 2]);
    for (const c of all as Chunk[]) expect(c.text).toBe(MARKDOWN.slice(c.charStart, c.charEnd));
    expect(all[1].headings).toEqual(['Café guide', 'Prices']);
    expect(all[2].text).toContain('😀');
    const source = (await call(h.app, 'GET', docPath(kb.kbId, doc), { key })).body;
    expect(source.chunkCount).toBe(3);
  });

  it('returns 409 while the source is not ready, and 404 for an unknown document', async () => {
    const kb = await createKb(h, key, 'Not yet', [textsField(['pending text'])]);
    expectErrorBody(await call(h.app, 'GET', docPath(kb.kbId, kb.files[0].documentId, '/chunks'), { key }), 409, '/v1/knowledge-bases', {
      message: 'any',
    });
    expectErrorBody(await call(h.app, 'GET', docPath(kb.kbId, 'doc_missing', '/chunks'), { key }), 404, '/v1/knowledge-bases');
  });

  it('refuses a size over 100 with 400', async () => {
    const kb = await createKb(h, key, 'Size', [textsField(['x'])]);
    const res = await call(h.app, 'GET', docPath(kb.kbId, kb.files[0].documentId, '/chunks?size=101'), { key });
    expectErrorBody(res, 400, '/v1/knowledge-bases', { fields: ['size'] });
  });

  it('deletes the Markdown and the chunks with the document and with the knowledge base', async () => {
    const kb = await createKb(h, key, 'Delete', [textsField(['one', 'two'])]);
    await readyWithMarkdown(kb.kbId, kb.files[0].documentId);
    await readyWithMarkdown(kb.kbId, kb.files[1].documentId);
    expect((await kbKeys(h, kb.kbId)).filter((k) => /:(md|chunks):/.test(k))).toHaveLength(4);
    expect((await call(h.app, 'DELETE', docPath(kb.kbId, kb.files[0].documentId), { key })).status).toBe(204);
    expect((await kbKeys(h, kb.kbId)).filter((k) => k.includes(kb.files[0].documentId))).toEqual([]);
    expect((await call(h.app, 'DELETE', `/v1/knowledge-bases/${kb.kbId}`, { key })).status).toBe(204);
    // Only the change feed outlives its knowledge base (for its retention), so a consumer sees the chunks go,
    // and its outbox, until the relay takes its events (none runs here; it expires too).
    const left = [h.store.keys.changes(kb.kbId), h.store.keys.changesInfo(kb.kbId), h.store.keys.outbox(kb.kbId), h.store.keys.outboxInfo(kb.kbId)];
    expect((await kbKeys(h, kb.kbId)).sort()).toEqual(left.sort());
    for (const k of left) expect(await h.redis.ttl(k)).toBeGreaterThan(0);
  });
});

describe('toStoredChunks', () => {
  it('records UTF-8 byte offsets that cut the same text as the character offsets, overlap included', () => {
    const chunks = chunksOf(MARKDOWN);
    const bytes = Buffer.from(MARKDOWN, 'utf8');
    toStoredChunks(MARKDOWN, chunks).forEach((s, i) => {
      expect(bytes.subarray(s.byteStart, s.byteEnd).toString('utf8')).toBe(chunks[i]!.text);
      expect(s).not.toHaveProperty('text');
    });
  });
});

describe('progress of a processing source', () => {
  it('shows progress while processing, only for the current run, and drops it when the source ends', async () => {
    const kb = await createKb(h, key, 'Progress', [textsField(['progress text'])]);
    const doc = kb.files[0].documentId;
    expect(await h.store.kbs.setProgress({ kbId: kb.kbId, documentId: doc, run: 1 }, { pagesDone: 1, pagesTotal: 9 })).toBe('not_processing');
    await h.store.kbs.startSourceReport({ kbId: kb.kbId, documentId: doc, run: 1 }, { now: new Date().toISOString() });
    expect(await h.store.kbs.setProgress({ kbId: kb.kbId, documentId: doc, run: 2 }, { pagesDone: 1, pagesTotal: 9 })).toBe('stale');
    expect(await h.store.kbs.setProgress({ kbId: kb.kbId, documentId: doc, run: 1 }, { pagesDone: 4, pagesTotal: 9 })).toBe('ok');
    const during = await call(h.app, 'GET', docPath(kb.kbId, doc), { key });
    expect(during.body).toMatchObject({ status: 'processing', progress: { pagesDone: 4, pagesTotal: 9 } });
    const now = new Date().toISOString();
    await h.store.kbs.finishSourceReport({ kbId: kb.kbId, documentId: doc, run: 1 }, { status: 'ready', text: 'progress text', truncated: false }, { now: now });
    const after = await call(h.app, 'GET', docPath(kb.kbId, doc), { key });
    expect(after.body.status).toBe('ready');
    expect(after.body).not.toHaveProperty('progress');
  });
});

describe('progress written by the processor', () => {
  it('shows the extraction progress on the processing source and drops it once ready', async () => {
    const { createProcessor } = await import('../../worker/jobs/processor.js');
    const { bullSourceQueue } = await import('../../shared/queue/jobs.js');
    const { createLogger } = await import('../../shared/runtime/logger.js');
    const kb = await createKb(h, key, 'Processor progress', [filePart('report.pdf', '%PDF-1.4 stand-in, never parsed here')]);
    const doc = kb.files[0].documentId;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let reported!: () => void;
    const progressed = new Promise<void>((r) => (reported = r));
    const processor = createProcessor({
      config: h.config,
      kbs: h.store.kbs,
      queue: bullSourceQueue(h.queue, 1),
      logger: createLogger('silent'),
      fetch: async () => Promise.reject(new Error('no URL here')),
      extract: async (_bytes, _hints, onProgress) => {
        onProgress?.({ pagesDone: 2, pagesTotal: 7 });
        reported();
        await held;
        return { markdown: 'Done.', text: 'Done.', truncated: false, format: 'pdf', mimeType: 'application/pdf', pageCount: 7 };
      },
    });
    const job = { id: 'progress-job', data: { workspaceId: 'ws-documents', kbId: kb.kbId, documentId: doc, run: 1 }, opts: { attempts: 1 }, attemptsMade: 0, name: 'extract-source' };
    const running = processor(job as never);
    await progressed;
    const during = await waitFor('the progress to be written', async () => {
      const body = (await call(h.app, 'GET', docPath(kb.kbId, doc), { key })).body;
      return body.progress ? body : undefined;
    });
    expect(during).toMatchObject({ status: 'processing', progress: { pagesDone: 2, pagesTotal: 7 } });
    release();
    await running;
    const after = (await call(h.app, 'GET', docPath(kb.kbId, doc), { key })).body;
    expect(after.status).toBe('ready');
    expect(after).not.toHaveProperty('progress');
  });
});
