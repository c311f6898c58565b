import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkId } from '../../shared/chunking/chunk-id.js';
import type { Chunk } from '../../shared/schemas/chunk.js';
import type { RunningWorker } from '../../worker/main.js';
import { call, expectErrorBody } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';
import { createKbWith, startTestWorker, waitForDocument } from '../helpers/worker-harness.js';

let h: Harness;
let key: string;
let worker: RunningWorker;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws-chunk-ids');
  worker = await startTestWorker(h);
});
afterAll(async () => {
  await worker.close();
  await h.close();
});

const SECTION = 'Visitors park in the north lot and walk to the main door along the marked path. '.repeat(6);
const TEXT = `# Visiting\n\n${SECTION}\n\n## Parking\n\n${SECTION}\n\n## Again\n\n${SECTION}`;

async function allChunks(kbId: string, documentId: string): Promise<Chunk[]> {
  const res = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/documents/${documentId}/chunks?size=100`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

function patchMetadata(kbId: string, documentId: string, body: string, apiKey = key) {
  return call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}/documents/${documentId}`, {
    key: apiKey,
    headers: { 'content-type': 'application/json' },
    body,
  });
}

describe('stable chunk ids', () => {
  it('derives each id from the knowledge base, source and text, distinct for repeated text, and keeps them across re-chunking', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => {
      f.set('chunk_max_tokens', '64');
      f.set('knowledge_base_texts', JSON.stringify([{ title: 'Visiting', text: TEXT }]));
    });
    const doc = docs[0]!;
    await waitForDocument(h, key, kbId, doc);
    const first = await allChunks(kbId, doc);
    expect(new Set(first.map((c) => c.id)).size).toBe(first.length);
    expect(first.every((c) => /^chk_[A-Za-z0-9_-]{22}$/.test(c.id))).toBe(true);
    expect(first[0]!.id).toBe(chunkId(kbId, doc, first[0]!.text));
    expect(first.map((c) => [c.documentId, c.title])).toEqual(first.map(() => [doc, 'Visiting']));
    const repeated = first.filter((c) => c.text === first.find((d) => first.filter((e) => e.text === d.text).length > 1)?.text);
    expect(repeated.length).toBeGreaterThan(1);

    const rechunk = async (max: string, done: (chunks: Chunk[]) => boolean) => {
      const form = new FormData();
      form.set('chunk_max_tokens', max);
      expect((await call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}`, { key, body: form })).status).toBe(200);
      return waitFor(`chunks cut with ${max} tokens`, async () => {
        const chunks = await allChunks(kbId, doc);
        return done(chunks) ? chunks : undefined;
      });
    };
    const wide = await rechunk('400', (chunks) => chunks.length < first.length);
    expect(wide.map((c) => c.id)).not.toEqual(first.map((c) => c.id));
    const back = await rechunk('64', (chunks) => chunks.length === first.length);
    expect(back.map((c) => c.id)).toEqual(first.map((c) => c.id));
  });
});

describe('metadata per source', () => {
  it('takes metadata with a text and a URL at creation, and shows it on the source and each chunk', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => {
      f.set('knowledge_base_texts', JSON.stringify([{ text: TEXT, metadata: { team: 'front desk', year: 2026, public: true } }]));
      // Loopback is refused by the address policy before any connection: this source ends failed, with its metadata.
      f.set('knowledge_base_urls', JSON.stringify(['http://127.0.0.1:9/a', { url: 'http://127.0.0.1:9/b', metadata: { lang: 'en' } }]));
    });
    const kb = (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).body;
    expect(kb.files.map((s: { metadata?: unknown }) => s.metadata)).toEqual([{ team: 'front desk', year: 2026, public: true }, undefined, { lang: 'en' }]);
    await waitForDocument(h, key, kbId, docs[0]!);
    const chunks = await allChunks(kbId, docs[0]!);
    expect(chunks.every((c) => c.metadata?.team === 'front desk' && c.metadata.year === 2026)).toBe(true);
  });

  it('replaces metadata with PATCH of the document, and {} removes it', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify([TEXT])));
    const doc = docs[0]!;
    await waitForDocument(h, key, kbId, doc);
    const res = await patchMetadata(kbId, doc, JSON.stringify({ metadata: { source: 'wiki', rank: 2 } }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.metadata).toEqual({ source: 'wiki', rank: 2 });
    expect((await allChunks(kbId, doc)).every((c) => c.metadata?.source === 'wiki')).toBe(true);
    expect((await patchMetadata(kbId, doc, '{"metadata":{}}')).body.metadata).toBeUndefined();
    expect((await allChunks(kbId, doc))[0]!.metadata).toBeUndefined();
  });

  it.each([
    ['a nested value', JSON.stringify({ metadata: { a: { b: 1 } } })],
    ['33 keys', JSON.stringify({ metadata: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, i])) })],
    ['more than 4 KB', JSON.stringify({ metadata: { a: 'x'.repeat(4100) } })],
    ['an unknown field', JSON.stringify({ metadata: {}, title: 'x' })],
    ['a body that is not JSON', '{metadata'],
  ])('refuses %s with 400 and keeps the metadata as it was', async (_what, body) => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify([{ text: 'Short note.', metadata: { keep: true } }])));
    expectErrorBody(await patchMetadata(kbId, docs[0]!, body), 400, '/v1/knowledge-bases', { message: 'any' });
    const source = (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/documents/${docs[0]}`, { key })).body;
    expect(source.metadata).toEqual({ keep: true });
  });

  it('refuses metadata that breaks the rules at creation, creating nothing', async () => {
    const form = new FormData();
    form.set('knowledge_base_name', 'bad metadata');
    form.set('knowledge_base_urls', JSON.stringify([{ url: 'http://127.0.0.1:9/', metadata: { list: [1, 2] } }]));
    const res = await call(h.app, 'POST', '/v1/knowledge-bases', { key, body: form });
    expectErrorBody(res, 400, '/v1/knowledge-bases', { message: 'any', fields: ['knowledge_base_urls[0]'] });
    expect(res.body.validationErrors['knowledge_base_urls[0]']).toMatch(/^metadata: values must be/);
    const texts = new FormData();
    texts.set('knowledge_base_name', 'bad metadata');
    texts.set('knowledge_base_texts', JSON.stringify([{ text: 'Note.', metadata: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, i])) }]));
    const byText = await call(h.app, 'POST', '/v1/knowledge-bases', { key, body: texts });
    expect(byText.status).toBe(400);
    expect(byText.body.validationErrors['knowledge_base_texts[0]']).toBe('metadata: at most 32 keys');
  });

  it('answers 403 to a read-only key, 404 for a missing document and 403 for another workspace', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['Note.'])));
    const body = JSON.stringify({ metadata: { a: 1 } });
    expect((await patchMetadata(kbId, docs[0]!, body, await h.key('ws-chunk-ids', { readOnly: true }))).status).toBe(403);
    expect((await patchMetadata(kbId, 'doc_missing', body)).status).toBe(404);
    expect((await patchMetadata(kbId, docs[0]!, body, await h.key('ws-other'))).status).toBe(403);
  });
});
