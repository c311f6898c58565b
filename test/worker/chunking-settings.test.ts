import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chunk } from '../../shared/schemas/chunk.js';
import type { RunningWorker } from '../../worker/main.js';
import { call } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';
import { createKbWith, startTestWorker, waitForDocument } from '../helpers/worker-harness.js';

let h: Harness;
let key: string;
let worker: RunningWorker;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws-chunking');
  worker = await startTestWorker(h);
});
afterAll(async () => {
  await worker.close();
  await h.close();
});

/** About 1,500 tokens of Markdown under three headings. */
const MARKDOWN = ['Parking', 'Opening hours', 'Payments']
  .map((topic, i) => `## ${i + 1}. ${topic}\n\n${`The ${topic.toLowerCase()} rules of the clinic are written here in plain words for every visitor. `.repeat(30)}`)
  .join('\n\n');

async function allChunks(kbId: string, documentId: string): Promise<Chunk[]> {
  const out: Chunk[] = [];
  for (let page = 0; ; page++) {
    const res = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/documents/${documentId}/chunks?page=${page}&size=100`, { key });
    expect(res.status, res.text).toBe(200);
    out.push(...res.body.data);
    if (!res.body.hasNext) return out;
  }
}

const maxTokens = (chunks: Chunk[]): number => Math.max(...chunks.map((c) => c.tokens));

function markdownFile(form: FormData, name = 'rules.md'): void {
  form.append('knowledge_base_files', new Blob([MARKDOWN], { type: 'text/markdown' }), name);
}

describe('chunking settings per knowledge base', () => {
  it("shows the deployment's settings on a knowledge base that chose none, and its own when it did", async () => {
    const plain = await createKbWith(h, key, () => undefined);
    const own = await createKbWith(h, key, (f) => {
      f.set('chunk_max_tokens', '100');
      f.set('chunk_overlap_tokens', '20');
    });
    const a = await call(h.app, 'GET', `/v1/knowledge-bases/${plain.kbId}`, { key });
    const b = await call(h.app, 'GET', `/v1/knowledge-bases/${own.kbId}`, { key });
    expect([a.body.chunkMaxTokens, a.body.chunkOverlapTokens]).toEqual([h.config.CHUNK_MAX_TOKENS, h.config.CHUNK_OVERLAP_TOKENS]);
    expect([b.body.chunkMaxTokens, b.body.chunkOverlapTokens]).toEqual([100, 20]);
  });

  it.each([
    [{ chunk_max_tokens: '15' }, 'chunk_max_tokens'],
    [{ chunk_max_tokens: '8193' }, 'chunk_max_tokens'],
    [{ chunk_max_tokens: 'big' }, 'chunk_max_tokens'],
    [{ chunk_max_tokens: '100', chunk_overlap_tokens: '51' }, 'chunk_overlap_tokens'],
    [{ chunk_overlap_tokens: '-1' }, 'chunk_overlap_tokens'],
  ])('refuses %j with 400 naming %s, creating nothing', async (fields, field) => {
    const form = new FormData();
    form.set('knowledge_base_name', 'bad settings');
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    const before = (await call(h.app, 'GET', '/v1/knowledge-bases?size=100', { key })).body.totalCount;
    const res = await call(h.app, 'POST', '/v1/knowledge-bases', { key, body: form });
    expect(res.status, res.text).toBe(400);
    expect(Object.keys(res.body.validationErrors)).toContain(field);
    expect((await call(h.app, 'GET', '/v1/knowledge-bases?size=100', { key })).body.totalCount).toBe(before);
  });

  it("holds an overlap given alone on PATCH to half of the knowledge base's current maximum, changing nothing when refused", async () => {
    const { kbId } = await createKbWith(h, key, (f) => f.set('chunk_max_tokens', '100'));
    const form = new FormData();
    form.set('chunk_overlap_tokens', '51');
    const res = await call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}`, { key, body: form });
    expect(res.status, res.text).toBe(400);
    expect(res.body.validationErrors.chunk_overlap_tokens).toMatch(/half/);
    const kb = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key });
    expect([kb.body.chunkMaxTokens, kb.body.chunkOverlapTokens]).toEqual([100, 0]);
  });

  it('cuts a text source and a file within the bound of their knowledge base', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => {
      f.set('chunk_max_tokens', '64');
      f.set('knowledge_base_texts', JSON.stringify([MARKDOWN.replace(/#/g, '')]));
      markdownFile(f);
    });
    for (const doc of docs) {
      expect((await waitForDocument(h, key, kbId, doc)).status).toBe('ready');
      const chunks = await allChunks(kbId, doc);
      expect(chunks.length).toBeGreaterThan(15);
      expect(maxTokens(chunks)).toBeLessThanOrEqual(64);
    }
  });

  it('re-chunks every ready source from its stored Markdown when the settings change, without extracting again', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => {
      f.set('chunk_max_tokens', '64');
      markdownFile(f);
    });
    const doc = docs[0]!;
    await waitForDocument(h, key, kbId, doc);
    const before = await allChunks(kbId, doc);
    const form = new FormData();
    form.set('chunk_max_tokens', '400');
    form.set('chunk_overlap_tokens', '40');
    const res = await call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}`, { key, body: form });
    expect(res.status, res.text).toBe(200);
    expect([res.body.chunkMaxTokens, res.body.chunkOverlapTokens]).toEqual([400, 40]);
    const after = await waitFor('the source to be re-chunked', async () => {
      const chunks = await allChunks(kbId, doc);
      return chunks.length < before.length ? chunks : undefined;
    });
    expect(maxTokens(after)).toBeGreaterThan(64);
    expect(maxTokens(after)).toBeLessThanOrEqual(400);
    const source = (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/documents/${doc}`, { key })).body;
    expect(source.status).toBe('ready');
    expect(source.chunkCount).toBe(after.length);
    // Overlapping chunks start before the previous one ends.
    expect(after[1]!.charStart).toBeLessThan(after[0]!.charEnd);
  });

  it('reuses an extraction of the same file elsewhere in the workspace, but never chunks cut with other settings', async () => {
    const first = await createKbWith(h, key, (f) => {
      f.set('chunk_max_tokens', '400');
      markdownFile(f);
    });
    await waitForDocument(h, key, first.kbId, first.docs[0]!);
    const firstChunks = await allChunks(first.kbId, first.docs[0]!);
    expect(maxTokens(firstChunks)).toBeGreaterThan(64);

    // Same settings: taken over whole, ready in the answer to the POST.
    const same = await createKbWith(h, key, (f) => {
      f.set('chunk_max_tokens', '400');
      markdownFile(f, 'copy.md');
    });
    const sameKb = await call(h.app, 'GET', `/v1/knowledge-bases/${same.kbId}`, { key });
    expect(sameKb.body.files[0].status).toBe('ready');
    expect((await allChunks(same.kbId, same.docs[0]!)).map((c) => c.text)).toEqual(firstChunks.map((c) => c.text));

    // Other settings: the Markdown is taken over, the chunks are cut again under this bound.
    const small = await createKbWith(h, key, (f) => {
      f.set('chunk_max_tokens', '64');
      markdownFile(f, 'small.md');
    });
    const doc = await waitForDocument(h, key, small.kbId, small.docs[0]!);
    expect(doc.status).toBe('ready');
    expect(doc.text).toBe((await call(h.app, 'GET', `/v1/knowledge-bases/${first.kbId}/documents/${first.docs[0]}`, { key })).body.text);
    const chunks = await allChunks(small.kbId, small.docs[0]!);
    expect(chunks.length).toBeGreaterThan(firstChunks.length);
    expect(maxTokens(chunks)).toBeLessThanOrEqual(64);
  });
});

describe("a text source's title in its chunks", () => {
  const CODE = `## 4. Script\n\n\`\`\`sh\n${Array.from({ length: 40 }, (_, i) => `book-visit --slot ${i} --room ${i % 5}`).join('\n')}\n\`\`\``;
  const TABLE = `## 5. Fees\n\n| Visit | Fee |\n| --- | --- |\n${Array.from({ length: 40 }, (_, i) => `| visit kind ${i} | ${10 + i} euros |`).join('\n')}`;

  it('roots every chunk at the title on the first run and after a re-chunk, never twice, with code blocks and tables reopened', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => {
      f.set('chunk_max_tokens', '64');
      f.set('knowledge_base_texts', JSON.stringify([
        { title: 'Clinic rules', text: `${MARKDOWN}\n\n${CODE}\n\n${TABLE}` },
        // The text already opens with its title (in other case): it is not repeated.
        { title: '1. PARKING', text: MARKDOWN },
      ]));
    });
    const [titled, opening] = docs as [string, string];
    for (const doc of [titled, opening]) expect((await waitForDocument(h, key, kbId, doc)).status).toBe('ready');

    const check = (chunks: Chunk[]): void => {
      expect(chunks.length).toBeGreaterThan(10);
      expect(chunks[0]!.headings).toEqual(['Clinic rules', '1. Parking']);
      for (const c of chunks) expect(c.headings[0]).toBe('Clinic rules');
      expect(chunks.find((c) => c.text.startsWith('## 2. Opening hours'))?.headings).toEqual(['Clinic rules', '2. Opening hours']);
      const inside = chunks.filter((c) => c.text.startsWith('book-visit'));
      expect(inside.length).toBeGreaterThan(1);
      for (const c of inside) {
        expect(c.prefix).toBe('```sh\n');
        expect(c.headings).toEqual(['Clinic rules', '4. Script']);
      }
      const rows = chunks.filter((c) => c.text.startsWith('| visit kind'));
      expect(rows.length).toBeGreaterThan(1);
      for (const c of rows) {
        // The table opens its section: its heading comes back with its header rows.
        expect(c.prefix).toBe('## 5. Fees\n\n| Visit | Fee |\n| --- | --- |\n');
        expect(c.headings).toEqual(['Clinic rules', '5. Fees']);
      }
    };
    const before = await allChunks(kbId, titled);
    check(before);
    const plain = await allChunks(kbId, opening);
    expect(plain[0]!.headings).toEqual(['1. Parking']);
    // The text's own sections, each alone in its path: no title above them.
    const ownPaths = (chunks: Chunk[]) => [...new Set(chunks.map((c) => JSON.stringify(c.headings)))];
    expect(ownPaths(plain)).toEqual(['["1. Parking"]', '["2. Opening hours"]', '["3. Payments"]']);

    const form = new FormData();
    form.set('chunk_max_tokens', '96');
    expect((await call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}`, { key, body: form })).status).toBe(200);
    const after = await waitFor('the text source to be re-chunked', async () => {
      const chunks = await allChunks(kbId, titled);
      return chunks.length < before.length && Math.max(...chunks.map((c) => c.tokens)) > 64 ? chunks : undefined;
    });
    check(after);
    const replain = await waitFor('the other text source to be re-chunked', async () => {
      const chunks = await allChunks(kbId, opening);
      return chunks.length < plain.length ? chunks : undefined;
    });
    expect(ownPaths(replain)).toEqual(ownPaths(plain));
  });
});
