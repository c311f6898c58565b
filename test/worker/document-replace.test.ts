import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../shared/schemas/changes.js';
import type { RunningWorker } from '../../worker/main.js';
import { call } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { multipartForm, filePart } from '../helpers/multipart-body.js';
import { createKbWith, startTestWorker, waitForDocument } from '../helpers/worker-harness.js';

let h: Harness;
let key: string;
let worker: RunningWorker;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws-replace-run');
  worker = await startTestWorker(h);
});
afterAll(async () => {
  await worker.close();
  await h.close();
});

const section = (name: string, words: string) => `## ${name}\n\n${`${words} `.repeat(12).trim()}`;
const docPath = (kbId: string, doc: string) => `/v1/knowledge-bases/${kbId}/documents/${doc}`;

async function chunkIds(kbId: string, doc: string): Promise<{ id: string; text: string }[]> {
  const res = await call(h.app, 'GET', `${docPath(kbId, doc)}/chunks?size=100`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body.data.map((c: { id: string; text: string }) => ({ id: c.id, text: c.text }));
}

/** Every feed event after `after` (the whole feed without it), and the cursor at its end. */
async function feedAfter(kbId: string, after?: string): Promise<{ events: ChangeEvent[]; cursor: string }> {
  const events: ChangeEvent[] = [];
  let cursor = after;
  for (;;) {
    const res = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/changes?size=100${cursor ? `&after=${cursor}` : ''}`, { key });
    expect(res.status, res.text).toBe(200);
    events.push(...res.body.data);
    cursor = res.body.nextCursor;
    if (!res.body.hasMore) return { events, cursor: cursor! };
  }
}

describe('a replaced source in the worker', () => {
  it('keeps the ids of chunks whose text is unchanged and writes only what changed to the feed', async () => {
    const v1 = [section('Opening', 'We open at nine every weekday morning.'), section('Parking', 'Parking is free for patients behind the clinic.'), section('Fees', 'A visit costs forty euros.')].join('\n\n');
    const { kbId, docs } = await createKbWith(h, key, (f) => {
      f.set('knowledge_base_texts', JSON.stringify([{ title: 'Clinic', text: v1 }]));
      f.set('chunk_max_tokens', '48');
    });
    const doc = docs[0]!;
    expect((await waitForDocument(h, key, kbId, doc)).status).toBe('ready');
    const before = await chunkIds(kbId, doc);
    expect(before.length).toBeGreaterThan(2);
    const { cursor } = await feedAfter(kbId);

    const v2 = v1.replace('A visit costs forty euros.', 'A visit costs fifty euros.');
    const put = await call(h.app, 'PUT', docPath(kbId, doc), {
      key,
      body: JSON.stringify({ knowledge_base_texts: [{ title: 'Clinic', text: v2 }] }),
      headers: { 'content-type': 'application/json' },
    });
    expect(put.status, put.text).toBe(202);
    const after = await waitForDocument(h, key, kbId, doc);
    expect(after).toMatchObject({ documentId: doc, status: 'ready' });
    expect((after as unknown as { text: string }).text).toContain('fifty euros');

    const now = await chunkIds(kbId, doc);
    const kept = now.filter((c) => !c.text.includes('euros'));
    const oldIds = new Set(before.map((c) => c.id));
    expect(kept.length).toBeGreaterThan(0);
    for (const c of kept) expect(oldIds.has(c.id), c.text).toBe(true);
    const changed = now.filter((c) => c.text.includes('fifty'));
    expect(changed.length).toBeGreaterThan(0);
    for (const c of changed) expect(oldIds.has(c.id)).toBe(false);

    const { events } = await feedAfter(kbId, cursor);
    const upserted = events.filter((e) => e.type === 'chunk.upserted').map((e) => (e as Extract<ChangeEvent, { type: 'chunk.upserted' }>).chunk.id);
    const deleted = events.filter((e) => e.type === 'chunk.deleted').map((e) => (e as Extract<ChangeEvent, { type: 'chunk.deleted' }>).chunkId);
    expect(upserted.sort()).toEqual(changed.map((c) => c.id).sort());
    const gone = before.filter((c) => !now.some((n) => n.id === c.id)).map((c) => c.id);
    expect(deleted.sort()).toEqual(gone.sort());
    expect(gone.length).toBeGreaterThan(0);
  });

  it('extracts an uploaded new version of a file source under the same documentId', async () => {
    const created = await call(h.app, 'POST', '/v1/knowledge-bases', {
      key,
      body: multipartForm([{ name: 'knowledge_base_name', value: 'files' }, filePart('notes.txt', 'The first version of the notes talks about apples.')]),
    });
    expect(created.status, created.text).toBe(201);
    const { kbId } = created.body;
    const doc = created.body.files[0].documentId as string;
    await waitForDocument(h, key, kbId, doc);

    const put = await call(h.app, 'PUT', docPath(kbId, doc), { key, body: multipartForm([filePart('notes.md', '# Notes\n\nThe second version talks about pears.')]) });
    expect(put.status, put.text).toBe(202);
    const after = (await waitForDocument(h, key, kbId, doc)) as unknown as { status: string; text: string; content: string; mimeType: string };
    expect(after).toMatchObject({ status: 'ready', content: 'notes.md' });
    expect(after.text).toContain('pears');
    expect(after.text).not.toContain('apples');
    const kb = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key });
    expect(kb.body.files.map((f: { documentId: string }) => f.documentId)).toEqual([doc]);
  });
});
