import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningWorker } from '../../worker/main.js';
import { call, expectErrorBody } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';
import { createKbWith, startTestWorker } from '../helpers/worker-harness.js';

let h: Harness;
let key: string;
let worker: RunningWorker;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws-search');
  worker = await startTestWorker(h);
});
afterAll(async () => {
  await worker.close();
  await h.close();
});

const filler = (topic: string) => `This part of the handbook covers ${topic} for every team in the company. `.repeat(6);
const handbook = [
  '# Handbook',
  '## Refund policy',
  `Customers may ask for their money back within thirty days. ${filler('payments')}`,
  '## Shipping',
  `Parcels leave the warehouse every weekday morning. ${filler('logistics')}`,
  '## Security',
  `Passwords are rotated every ninety days and refunds are never paid in cash. ${filler('access')}`,
].join('\n\n');
const travel = `# Travel\n\n## Expenses\n\nTrain tickets are refunded after the trip. ${filler('travel')}`;

async function settled(kbId: string): Promise<void> {
  await waitFor(`knowledge base ${kbId} to settle`, async () => (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).body.status === 'ready');
}

const search = (kbId: string, body: unknown, apiKey = key, app = h.app) =>
  call(app, 'POST', `/v1/knowledge-bases/${kbId}/search`, { key: apiKey, body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });

describe('POST /v1/knowledge-bases/{kbId}/search', () => {
  let kbId: string;
  let docs: string[];

  beforeAll(async () => {
    ({ kbId, docs } = await createKbWith(h, key, (f) => {
      f.set('chunk_max_tokens', '64');
      f.set('knowledge_base_texts', JSON.stringify([{ title: 'Handbook', text: handbook, metadata: { team: 'ops' } }, { title: 'Travel', text: travel, metadata: { team: 'sales' } }]));
    }));
    await settled(kbId);
  });

  it('ranks first the chunk under the heading the query names, stems the words and highlights them', async () => {
    const res = await search(kbId, { query: 'refunds policy', topK: 5 });
    expect(res.status, res.text).toBe(200);
    const [best] = res.body.data;
    expect(best.chunk.headings).toContain('Refund policy');
    expect(best.chunk).toMatchObject({ documentId: docs[0], title: 'Handbook', metadata: { team: 'ops' } });
    expect(best.score).toBeGreaterThan(0);
    expect(res.body.data.map((d: { score: number }) => d.score)).toEqual([...res.body.data.map((d: { score: number }) => d.score)].sort((a, b) => b - a));
    // "refunded" and "refunds" in other chunks stem to the query's "refund".
    const texts = res.body.data.map((d: { highlight: string }) => d.highlight).join('\n');
    expect(texts).toMatch(/<mark>refund(ed|s)<\/mark>/i);
    expect(res.body.data.some((d: { matchedTerms: string[] }) => d.matchedTerms.includes('refunded'))).toBe(true);
  });

  it('narrows to the documents and the metadata asked for', async () => {
    const byDoc = await search(kbId, { query: 'refund', filter: { documentIds: [docs[1]] } });
    expect(byDoc.body.data.length).toBeGreaterThan(0);
    expect(byDoc.body.data.every((d: { chunk: { documentId: string } }) => d.chunk.documentId === docs[1])).toBe(true);
    const byMeta = await search(kbId, { query: 'refund', filter: { metadata: { team: 'ops' } } });
    expect(byMeta.body.data.length).toBeGreaterThan(0);
    expect(byMeta.body.data.every((d: { chunk: { documentId: string } }) => d.chunk.documentId === docs[0])).toBe(true);
    expect((await search(kbId, { query: 'refund', filter: { metadata: { team: 'nobody' } } })).body.data).toEqual([]);
  });

  it('follows the change feed: a deleted source leaves the results, a new one enters them', async () => {
    const { kbId: other } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['# Kiwis\n\nKiwis are small flightless birds.'])));
    await settled(other);
    const before = await search(other, { query: 'kiwi birds' });
    expect(before.body.data).toHaveLength(1);
    const form = new FormData();
    form.set('knowledge_base_texts', JSON.stringify(['# Emus\n\nEmus are tall flightless birds.']));
    expect((await call(h.app, 'PATCH', `/v1/knowledge-bases/${other}`, { key, body: form })).status).toBe(200);
    await settled(other);
    expect((await search(other, { query: 'flightless' })).body.data).toHaveLength(2);
    const kb = (await call(h.app, 'GET', `/v1/knowledge-bases/${other}`, { key })).body;
    expect((await call(h.app, 'DELETE', `/v1/knowledge-bases/${other}/documents/${kb.files[0].documentId}`, { key })).status).toBe(204);
    const after = await search(other, { query: 'flightless' });
    expect(after.body.data.map((d: { chunk: { text: string } }) => d.chunk.text).join()).toContain('Emus');
    expect(after.body.data).toHaveLength(1);
  });

  it('answers alike on another API replica, which builds its own index, and keeps no index in Redis', async () => {
    const replica = await createHarness({ REDIS_KEY_PREFIX: h.prefix });
    try {
      const queries = ['warehouse parcels', 'refunds policy', 'passwords cash', 'train tickets'];
      for (const query of queries) {
        const here = await search(kbId, { query, topK: 10 });
        const there = await search(kbId, { query, topK: 10 }, key, replica.app);
        expect(there.status).toBe(200);
        expect(there.body).toEqual(here.body);
      }
      expect((await h.allKeys()).filter((k) => k.includes(':sx:'))).toEqual([]);
    } finally {
      await replica.queue.close();
      await replica.redis.quit();
    }
  });

  it('searches a source without headings after a metadata PATCH re-sends its chunks', async () => {
    const { kbId: plain, docs: [doc] } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['Kiwis are small flightless birds of New Zealand.', 'Penguins swim.'])));
    await settled(plain);
    expect((await search(plain, { query: 'kiwis' })).body.data).toHaveLength(1);
    const patch = await call(h.app, 'PATCH', `/v1/knowledge-bases/${plain}/documents/${doc}`, {
      key,
      body: JSON.stringify({ metadata: { team: 'birds' } }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(patch.status, patch.text).toBe(200);
    for (let i = 0; i < 2; i++) {
      const res = await search(plain, { query: 'kiwis' });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.map((d: { chunk: { documentId: string; metadata?: unknown } }) => [d.chunk.documentId, d.chunk.metadata])).toEqual([[doc, { team: 'birds' }]]);
    }
  });

  it("leaves the stop words of the stemmer's language out of a query that has other words", async () => {
    const chatter = 'How do I do this? How do you do it, and what do they do with the things that they do? It is what it is, and so it was. '.repeat(3);
    const { kbId: faq, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify([chatter, `Feeding: give the kiwi worms every evening. ${filler('care')}`])));
    await settled(faq);
    const res = await search(faq, { query: 'how do I do the kiwi' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((d: { chunk: { documentId: string } }) => d.chunk.documentId)).toEqual([docs[1]]);
    expect(res.body.data[0].matchedTerms).toEqual(['kiwi']);
    // A query of stop words alone is still searched with them.
    expect((await search(faq, { query: 'how do I' })).body.data[0].chunk.documentId).toBe(docs[0]);
  });

  it('lets a read-only key search but not change anything, and refuses other workspaces and bad bodies', async () => {
    const readOnly = await h.key('ws-search', { readOnly: true });
    expect((await search(kbId, { query: 'passwords' }, readOnly)).status).toBe(200);
    expect((await call(h.app, 'POST', `/v1/knowledge-bases/${kbId}/documents/${docs[0]}/refresh`, { key: readOnly })).status).toBe(403);
    expect((await search(kbId, { query: 'passwords' }, await h.key('ws-search-other'))).status).toBe(403);
    expectErrorBody(await search(kbId, { query: '  ' }), 400, '/v1/knowledge-bases', { fields: ['query'] });
    expectErrorBody(await search(kbId, { query: 'x', topK: 1000 }), 400, '/v1/knowledge-bases', { fields: ['topK'] });
    expectErrorBody(await search(kbId, { query: 'x', colour: 'red' }), 400, '/v1/knowledge-bases', { fields: [] });
  });
});
