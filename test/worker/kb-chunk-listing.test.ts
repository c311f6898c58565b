import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chunk } from '../../shared/schemas/chunk.js';
import type { RunningWorker } from '../../worker/main.js';
import { SeededRandom } from '../../scripts/lib/seeded-random.js';
import { call, expectErrorBody } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';
import { createKbWith, startTestWorker } from '../helpers/worker-harness.js';

let h: Harness;
let key: string;
let worker: RunningWorker;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws-kb-chunks');
  worker = await startTestWorker(h);
});
afterAll(async () => {
  await worker.close();
  await h.close();
});

const note = (n: number) => `# Note ${n}\n\n${`Item ${n} of the catalogue is described here in a sentence of plain words. `.repeat(8 + (n % 5) * 4)}`;

/** Every source's chunks through the per-document listing, in source order: what the knowledge-base listing must equal. */
async function perDocument(kbId: string): Promise<Chunk[]> {
  const kb = (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).body;
  const out: Chunk[] = [];
  for (const s of kb.files) {
    if (s.status !== 'ready') continue;
    for (let page = 0; ; page++) {
      const res = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/documents/${s.documentId}/chunks?page=${page}&size=100`, { key });
      out.push(...res.body.data);
      if (!res.body.hasNext) break;
    }
  }
  return out;
}

async function listing(kbId: string, size: number, between?: () => Promise<void>): Promise<{ chunks: Chunk[]; pages: number }> {
  const chunks: Chunk[] = [];
  let after: string | null = null;
  let pages = 0;
  do {
    const q: string = after ? `&after=${after}` : '';
    const res = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/chunks?size=${size}${q}`, { key });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.length).toBeLessThanOrEqual(size);
    chunks.push(...res.body.data);
    after = res.body.nextCursor;
    pages += 1;
    if (between && pages === 1) await between();
  } while (after);
  return { chunks, pages };
}

async function settled(kbId: string): Promise<void> {
  await waitFor(`knowledge base ${kbId} to settle`, async () => {
    const kb = (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).body;
    return kb.status !== 'in_progress' && kb.files.every((s: { chunkCount?: number; status: string }) => s.status !== 'ready' || s.chunkCount! > 0);
  });
}

describe('GET /v1/knowledge-bases/{kbId}/chunks', () => {
  it('lists, page by page, exactly the chunks of every ready source after a seeded sequence of adds, deletes and re-chunks', async () => {
    const random = new SeededRandom(2211);
    const { kbId } = await createKbWith(h, key, (f) => f.set('chunk_max_tokens', '64'));
    let n = 0;
    for (let step = 0; step < 6; step++) {
      const form = new FormData();
      const texts = Array.from({ length: random.int(1, 3) }, () => note(n++));
      form.set('knowledge_base_texts', JSON.stringify(texts));
      if (random.chance(0.4)) form.set('chunk_max_tokens', String(random.int(64, 300)));
      expect((await call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}`, { key, body: form })).status).toBe(200);
      await settled(kbId);
      const files = (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).body.files;
      if (files.length > 2 && random.chance(0.5)) {
        const victim = files[random.int(0, files.length - 1)].documentId;
        expect((await call(h.app, 'DELETE', `/v1/knowledge-bases/${kbId}/documents/${victim}`, { key })).status).toBe(204);
      }
    }
    // Settings may have changed last: wait until no job (re-chunk included) is left in the queue.
    await waitFor('the queue to drain', async () => {
      const counts = await h.queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      return Object.values(counts).every((c) => c === 0);
    });
    const bound = (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).body.chunkMaxTokens;
    const expected = await perDocument(kbId);
    expect(expected.every((c) => c.tokens <= bound)).toBe(true);
    expect(expected.length).toBeGreaterThan(10);
    for (const size of [1, 7, 100]) {
      const { chunks, pages } = await listing(kbId, size);
      expect(chunks.map((c) => c.id)).toEqual(expected.map((c) => c.id));
      expect(chunks).toEqual(expected);
      expect(pages).toBe(Math.max(1, Math.ceil(expected.length / size)));
    }
  });

  it('neither skips nor repeats the other sources when one is deleted between pages', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify([note(1), note(2), note(3)])));
    await settled(kbId);
    const all = await perDocument(kbId);
    const firstPage = all.filter((c) => c.documentId === docs[0]).length;
    const { chunks } = await listing(kbId, firstPage, async () => {
      expect((await call(h.app, 'DELETE', `/v1/knowledge-bases/${kbId}/documents/${docs[1]}`, { key })).status).toBe(204);
    });
    expect(chunks.map((c) => c.id)).toEqual(all.filter((c) => c.documentId !== docs[1]).map((c) => c.id));
  });

  it('refuses a cursor it did not make and a size over 100 with 400', async () => {
    const { kbId } = await createKbWith(h, key, () => undefined);
    expectErrorBody(await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/chunks?after=nonsense`, { key }), 400, '/v1/knowledge-bases', {
      message: 'any',
      fields: ['after'],
    });
    expectErrorBody(await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/chunks?size=101`, { key }), 400, '/v1/knowledge-bases', {
      message: 'any',
      fields: ['size'],
    });
  });

  it('answers an empty listing for a knowledge base without ready sources, and serves a read-only key', async () => {
    const { kbId } = await createKbWith(h, key, () => undefined);
    const readOnly = await h.key('ws-kb-chunks', { readOnly: true });
    const res = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/chunks`, { key: readOnly });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ data: [], nextCursor: null, changesCursor: expect.any(String) });
  });
});
