import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chunk } from '../../shared/schemas/chunk.js';
import type { RunningWorker } from '../../worker/main.js';
import { call, jobsOf } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { createKbWith, startTestWorker, waitForDocument } from '../helpers/worker-harness.js';

let h: Harness;
let key: string;
let worker: RunningWorker;

beforeAll(async () => {
  h = await createHarness({ CHUNK_MAX_TOKENS: '32' });
  key = await h.key('ws-structured');
  worker = await startTestWorker(h);
});
afterAll(async () => {
  await worker.close();
  await h.close();
});

const HTML = `<!doctype html><html><head><title>Clinic guide</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>Clinic guide</h1><p>${'The clinic opens at nine in the morning and closes at five. '.repeat(3)}</p>
<h2>Parking</h2><p>${'Parking is free for patients who show their appointment card at the gate. '.repeat(3)}</p>
<ol><li>Take a ticket</li><li>Show the card</li></ol></article></body></html>`;

async function allChunks(kbId: string, documentId: string): Promise<Chunk[]> {
  const out: Chunk[] = [];
  for (let page = 0; ; page++) {
    const res = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/documents/${documentId}/chunks?page=${page}&size=100`, { key });
    expect(res.status, res.text).toBe(200);
    out.push(...res.body.data);
    if (!res.body.hasNext) return out;
  }
}

describe('structured extraction end to end', () => {
  it('keeps an uploaded page as Markdown with headings and numbered lists, and serves chunks that slice it exactly', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.append('knowledge_base_files', new Blob([HTML], { type: 'text/html' }), 'guide.html'));
    const doc = await waitForDocument(h, key, kbId, docs[0]!);
    expect(doc.status, JSON.stringify(doc.error)).toBe('ready');
    const md = (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/documents/${docs[0]}?format=markdown`, { key })).body.markdown as string;
    expect(md).toMatch(/^# Clinic guide$/m);
    expect(md).toMatch(/^## Parking$/m);
    expect(md).toMatch(/^1\. Take a ticket$/m);
    expect(md).not.toContain('About');
    expect(doc.text).not.toContain('#');

    const chunks = await allChunks(kbId, docs[0]!);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      expect(c.text).toBe(md.slice(c.charStart, c.charEnd));
      expect(c.tokens).toBeLessThanOrEqual(32);
    }
    expect(chunks.find((c) => c.text.includes('Parking is free'))?.headings).toEqual(['Clinic guide', 'Parking']);
  });

  it('chunks a text source too', async () => {
    const text = 'First sentence of a note. '.repeat(20);
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify([text])));
    await waitForDocument(h, key, kbId, docs[0]!);
    const chunks = await allChunks(kbId, docs[0]!);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((c) => c.text).join(' ').replace(/\s+/g, ' ')).toBe(text.trim().replace(/\s+/g, ' '));
  });

  it('titles a text source without a title by its first heading, which heads its chunks; a given title heads the text\'s own headings', async () => {
    const body = 'Refunds are paid within ten days of the request. '.repeat(8);
    const texts = [`Refund policy\n=============\n\n${body}`, { title: 'Given title', text: `# Returns\n\n${body}` }];
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(texts)));
    const derived = await waitForDocument(h, key, kbId, docs[0]!);
    const given = await waitForDocument(h, key, kbId, docs[1]!);
    expect(derived.title).toBe('Refund policy');
    expect(given.title).toBe('Given title');
    const chunks = await allChunks(kbId, docs[0]!);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.headings).toEqual(['Refund policy']);
    for (const c of await allChunks(kbId, docs[1]!)) expect(c.headings).toEqual(['Given title', 'Returns']);
  });

  it('reuses the extraction of the same file bytes in the workspace: the new source is ready at once, with no job', async () => {
    const upload = (name: string) => (f: FormData) => f.append('knowledge_base_files', new Blob([HTML], { type: 'text/html' }), name);
    const first = await createKbWith(h, key, upload('guide.html'));
    const original = await waitForDocument(h, key, first.kbId, first.docs[0]!);
    expect(original.status).toBe('ready');

    const second = await createKbWith(h, key, upload('copy-of-guide.html'));
    const reused = (await call(h.app, 'GET', `/v1/knowledge-bases/${second.kbId}/documents/${second.docs[0]}?format=markdown`, { key })).body;
    expect(reused.status).toBe('ready');
    expect(reused.text).toBe(original.text);
    expect(reused.content).toBe('copy-of-guide.html');
    expect(await jobsOf(h, second.kbId)).toHaveLength(0);
    expect((await allChunks(second.kbId, second.docs[0]!)).map((c) => c.text)).toEqual((await allChunks(first.kbId, first.docs[0]!)).map((c) => c.text));
    expect((await call(h.app, 'GET', `/v1/knowledge-bases/${second.kbId}`, { key })).body.sourceCounts).toEqual({ pending: 0, processing: 0, ready: 1, failed: 0 });

    // Another workspace extracts for itself.
    const otherKey = await h.key('ws-structured-other');
    const other = await createKbWith(h, otherKey, upload('guide.html'));
    expect(await jobsOf(h, other.kbId)).toHaveLength(1);
  });
});
