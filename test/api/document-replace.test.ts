import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { filePart, multipartForm, nameField, textsField, urlsField } from '../helpers/multipart-body.js';
import { call, createKb, expectErrorBody, jobsOf, kbKeys, type ApiResponse } from './support.js';

const KB_PATH = '/v1/knowledge-bases';
let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws_replace');
});
afterAll(async () => {
  await h.close();
});

const docPath = (kbId: string, documentId: string) => `${KB_PATH}/${kbId}/documents/${documentId}`;
const putForm = (kbId: string, documentId: string, parts: Parameters<typeof multipartForm>[0], headers: Record<string, string> = {}, k = key): Promise<ApiResponse> =>
  call(h.app, 'PUT', docPath(kbId, documentId), { key: k, body: multipartForm(parts), headers });
const putJson = (kbId: string, documentId: string, body: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> =>
  call(h.app, 'PUT', docPath(kbId, documentId), { key, body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });

/** Ends a source's run as a worker would, with `text` as its extraction (the worker's own finish is covered in test/worker). */
async function markReady(kbId: string, documentId: string, text: string): Promise<void> {
  const source = await h.store.kbs.getSource(kbId, documentId);
  const now = new Date().toISOString();
  expect((await h.store.kbs.startSourceReport({ kbId, documentId, run: source!.run }, { now })).result).toBe('ok');
  expect((await h.store.kbs.finishSourceReport({ kbId, documentId, run: source!.run }, { status: 'ready', text, truncated: false }, { now })).result).toBe('ok');
}

describe('PUT /v1/knowledge-bases/{kbId}/documents/{documentId}', () => {
  it('replaces a ready text source under the same documentId: pending under a new run, read as any source in flight, its old text kept until the run ends', async () => {
    const kb = await createKb(h, key, 'Replace text', [textsField(['first', { title: 'Hours', text: 'Open 9 to 5.' }])]);
    const doc = kb.files[1].documentId as string;
    await markReady(kb.kbId, doc, 'Open 9 to 5.');
    const jobsBefore = (await jobsOf(h, kb.kbId)).length;

    const res = await putJson(kb.kbId, doc, { knowledge_base_texts: [{ title: 'Hours', text: 'Open 8 to 6.' }] });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ documentId: doc, type: 'text', content: 'Open 8 to 6.', title: 'Hours', status: 'pending' });
    expect(res.headers.get('etag')).toMatch(/^"/);

    const read = await call(h.app, 'GET', docPath(kb.kbId, doc), { key });
    // As during a refresh: the contract's processing state (text null until ready), the previous text kept in the store for the finish to replace.
    expect(read.body).toMatchObject({ status: 'pending', text: null });
    expect(await h.store.kbs.getText(kb.kbId, doc)).toBe('Open 9 to 5.');
    const whole = await call(h.app, 'GET', `${KB_PATH}/${kb.kbId}`, { key });
    expect(whole.body.files.map((f: { documentId: string }) => f.documentId)).toEqual(kb.files.map((f: { documentId: string }) => f.documentId));
    const jobs = await jobsOf(h, kb.kbId);
    expect(jobs.length).toBe(jobsBefore + 1);
    expect(jobs.some((j) => j.data.documentId === doc && j.data.run === 2)).toBe(true);
  });

  it('replaces a file source with an uploaded file, keeping its metadata', async () => {
    const kb = await createKb(h, key, 'Replace file', [filePart('notes.txt', 'Version one of the notes.')]);
    const doc = kb.files[0].documentId as string;
    await h.store.kbs.setMetadata({ workspaceId: 'ws_replace', kbId: kb.kbId, documentId: doc }, { team: 'ops' }, new Date().toISOString());
    await markReady(kb.kbId, doc, 'Version one of the notes.');

    // As a PDF's extraction would have left it: the new version's finish writes no page count of its own.
    await h.redis.hset(h.store.keys.source(kb.kbId, doc), 'pageCount', '12');
    const res = await putForm(kb.kbId, doc, [filePart('notes-v2.md', '# Notes\n\nVersion two.')]);
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ documentId: doc, type: 'file', content: 'notes-v2.md', status: 'pending', metadata: { team: 'ops' } });
    expect(res.body.pageCount ?? null).toBeNull();
    expect((await h.redis.get(h.store.keys.blob(kb.kbId, doc)))?.toString()).toBe('# Notes\n\nVersion two.');
    expect((await h.allKeys()).filter((k) => k.includes(':stage:'))).toEqual([]);
  });

  it('answers 400 for a URL source, which is refreshed rather than replaced, and changes nothing', async () => {
    const kb = await createKb(h, key, 'Replace url', [urlsField(['https://example.com/a'])]);
    const doc = kb.files[0].documentId as string;
    await markReady(kb.kbId, doc, 'A page.');
    const before = await h.redis.hgetall(h.store.keys.source(kb.kbId, doc));
    const res = await putJson(kb.kbId, doc, { knowledge_base_texts: ['new'] });
    expectErrorBody(res, 400, KB_PATH, { fields: ['documentId'] });
    expect(res.body.validationErrors.documentId).toMatch(/not replaceable.*refresh/);
    expect(await h.redis.hgetall(h.store.keys.source(kb.kbId, doc))).toEqual(before);
  });

  it('answers 409 while the source is pending, and for content another source has', async () => {
    const kb = await createKb(h, key, 'Busy', [textsField(['one', 'two'])]);
    const [a, b] = kb.files.map((f: { documentId: string }) => f.documentId) as [string, string];
    expectErrorBody(await putJson(kb.kbId, a, { knowledge_base_texts: ['uno'] }), 409, KB_PATH, { message: 'any' });
    await markReady(kb.kbId, a, 'one');
    const dup = await putJson(kb.kbId, a, { knowledge_base_texts: ['two'] });
    expectErrorBody(dup, 409, KB_PATH, { message: 'any' });
    expect(dup.body.message).toContain(b);
  });

  it.each([
    ['two texts', { knowledge_base_texts: ['a', 'b'] }, 'request'],
    ['no version at all', {}, 'request'],
    ['a rename beside the text', { knowledge_base_name: 'x', knowledge_base_texts: ['a'] }, 'knowledge_base_name'],
    ['an empty text', { knowledge_base_texts: [' '] }, 'knowledge_base_texts[0]'],
    ['an unknown field', { text: 'a' }, 'text'],
  ])('answers 400 for %s and leaves the source as it was', async (_label, body, field) => {
    const kb = await createKb(h, key, 'Bad body', [textsField(['kept'])]);
    const doc = kb.files[0].documentId as string;
    await markReady(kb.kbId, doc, 'kept');
    const keysBefore = (await kbKeys(h, kb.kbId)).sort();
    const res = await putJson(kb.kbId, doc, body);
    expectErrorBody(res, 400, KB_PATH, { fields: [field] });
    expect((await call(h.app, 'GET', docPath(kb.kbId, doc), { key })).body).toMatchObject({ status: 'ready', content: 'kept' });
    expect((await kbKeys(h, kb.kbId)).sort()).toEqual(keysBefore);
  });

  it('answers 415 for a file type that is not accepted, discarding the upload', async () => {
    const kb = await createKb(h, key, 'Bad file', [textsField(['kept'])]);
    const doc = kb.files[0].documentId as string;
    await markReady(kb.kbId, doc, 'kept');
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const res = await putForm(kb.kbId, doc, [filePart('a.pdf', png)]);
    expectErrorBody(res, 415, KB_PATH, { message: 'any' });
    expect((await call(h.app, 'GET', docPath(kb.kbId, doc), { key })).body.status).toBe('ready');
  });

  it('answers 404 for an unknown source and 403 for another workspace', async () => {
    const kb = await createKb(h, key, 'Missing', [textsField(['x'])]);
    expectErrorBody(await putJson(kb.kbId, 'doc_missing', { knowledge_base_texts: ['y'] }), 404, KB_PATH, { fields: ['documentId'] });
    const other = await h.key('ws_replace_other');
    const res = await putForm(kb.kbId, kb.files[0].documentId, [textsField(['y'])], {}, other);
    expectErrorBody(res, 403, KB_PATH, { fields: ['request'] });
  });

  it('honours If-Match and replays an Idempotency-Key', async () => {
    const kb = await createKb(h, key, 'Conditional', [textsField(['v1'])]);
    const doc = kb.files[0].documentId as string;
    await markReady(kb.kbId, doc, 'v1');
    const stale = await putJson(kb.kbId, doc, { knowledge_base_texts: ['v2'] }, { 'If-Match': '"0"' });
    expectErrorBody(stale, 412, KB_PATH, { message: 'any' });
    const etag = (await call(h.app, 'GET', `${KB_PATH}/${kb.kbId}`, { key })).headers.get('etag')!;
    const first = await putJson(kb.kbId, doc, { knowledge_base_texts: ['v2'] }, { 'If-Match': etag, 'Idempotency-Key': 'put-1' });
    expect(first.status, first.text).toBe(202);
    const again = await putJson(kb.kbId, doc, { knowledge_base_texts: ['v2'] }, { 'If-Match': etag, 'Idempotency-Key': 'put-1' });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await h.store.kbs.getSource(kb.kbId, doc))?.run).toBe(2);
  });

  it('counts the new version against the stored-bytes quota', async () => {
    const k = await h.key('ws_replace_quota');
    const kb = await call(h.app, 'POST', KB_PATH, { key: k, body: multipartForm([nameField('Quota'), textsField(['small'])]) });
    const doc = kb.body.files[0].documentId as string;
    await markReady(kb.body.kbId, doc, 'small');
    await h.store.quotas.set('ws_replace_quota', { storedBytes: 4096 });
    const res = await call(h.app, 'PUT', docPath(kb.body.kbId, doc), {
      key: k,
      body: JSON.stringify({ knowledge_base_texts: ['x'.repeat(8192)] }),
      headers: { 'content-type': 'application/json' },
    });
    expectErrorBody(res, 413, KB_PATH, { message: 'any' });
    expect((await h.store.kbs.getSource(kb.body.kbId, doc))?.status).toBe('ready');
  });
});
