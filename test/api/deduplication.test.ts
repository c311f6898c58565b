import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { filePart, textsField, urlsField } from '../helpers/multipart-body.js';
import { call, createKb, jobsOf, kbKeys, patchKb } from './support.js';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws-dedup');
});
afterAll(async () => h.close());

const contents = async (kbId: string): Promise<string[]> =>
  (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).body.files.map((f: { content: string }) => f.content);

describe('sources the knowledge base already has', () => {
  it('adds nothing for the same file bytes under another name, and keeps no staged bytes for it', async () => {
    const kb = await createKb(h, key, 'Files', [filePart('a.txt', 'identical bytes')]);
    const res = await patchKb(h, key, kb.kbId, [filePart('copy-of-a.txt', 'identical bytes'), filePart('b.txt', 'other bytes')]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.files.map((f: { content: string }) => f.content)).toEqual(['a.txt', 'b.txt']);
    expect(await jobsOf(h, kb.kbId)).toHaveLength(2);
    expect((await kbKeys(h, kb.kbId)).filter((k) => k.includes(':stage:'))).toEqual([]);
    expect(res.body.sourceCounts.pending).toBe(2);
  });

  it('adds one source for a file sent twice in one request', async () => {
    const kb = await createKb(h, key, 'Twice');
    const res = await patchKb(h, key, kb.kbId, [filePart('x.txt', 'twice'), filePart('y.txt', 'twice')]);
    expect(res.body.files.map((f: { content: string }) => f.content)).toEqual(['x.txt']);
  });

  it('adds nothing for the same URL after normalization, fragment included', async () => {
    const kb = await createKb(h, key, 'Urls', [urlsField(['https://Example.com:443/faq?a=1'])]);
    await patchKb(h, key, kb.kbId, [urlsField(['https://example.com/faq?a=1#pricing', 'https://example.com/faq?a=2'])]);
    expect(await contents(kb.kbId)).toEqual(['https://example.com/faq?a=1', 'https://example.com/faq?a=2']);
  });

  it('adds nothing for the same text with the same title, but does for another title', async () => {
    const kb = await createKb(h, key, 'Texts', [textsField(['Parking is free.', { title: 'Hours', text: '9 to 5' }])]);
    const res = await patchKb(h, key, kb.kbId, [textsField(['Parking is free.', { title: 'Hours', text: '9 to 5' }, { title: 'Other', text: '9 to 5' }])]);
    expect(res.status).toBe(200);
    expect(res.body.files).toHaveLength(3);
    expect(res.body.files[2].title).toBe('Other');
  });

  it('adds a source again once the earlier one was deleted', async () => {
    const kb = await createKb(h, key, 'Deleted', [textsField(['come back'])]);
    await call(h.app, 'DELETE', `/v1/knowledge-bases/${kb.kbId}/documents/${kb.files[0].documentId}`, { key });
    const res = await patchKb(h, key, kb.kbId, [textsField(['come back'])]);
    expect(res.body.files).toHaveLength(1);
    expect(res.body.files[0].documentId).not.toBe(kb.files[0].documentId);
  });

  it('keeps the same content apart in two knowledge bases', async () => {
    const a = await createKb(h, key, 'A', [textsField(['shared text'])]);
    const b = await createKb(h, key, 'B', [textsField(['shared text'])]);
    expect(a.files).toHaveLength(1);
    expect(b.files).toHaveLength(1);
  });
});
