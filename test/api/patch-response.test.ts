import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { filePart, textsField, urlsField } from '../helpers/multipart-body.js';
import { call, createKb, patchKb } from './support.js';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws-patch-response');
});
afterAll(async () => h.close());

const read = async (kbId: string) => (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).body;

/**
 * The answer of a POST or PATCH is built from the records the commit wrote
 * for its new sources, not read back; with no worker running, it must be
 * exactly what a GET reads from Redis right after.
 */
describe('the answer of a change is the knowledge base as stored', () => {
  it('answers a POST with new texts, URLs and files as a GET reads them', async () => {
    const kb = await createKb(h, key, 'Answer', [
      textsField(['plain note', { title: 'Titled', text: 'a titled note', metadata: { team: 'sales', rank: 2 } }]),
      urlsField(['https://example.com/faq']),
      filePart('hours.txt', 'We open at nine.'),
    ]);
    expect(kb.files).toHaveLength(4);
    expect(kb).toEqual(await read(kb.kbId));
  });

  it('answers a PATCH with the existing sources first and the new ones after, as a GET reads them', async () => {
    const kb = await createKb(h, key, 'Answer', [textsField(['first'])]);
    const res = await patchKb(h, key, kb.kbId, [textsField(['second', { title: 'Third', text: 'third', metadata: { lang: 'en' } }]), filePart('b.md', '# B\n\nbody')]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.files.map((f: { content: string }) => f.content)).toEqual(['first', 'second', 'third', 'b.md']);
    expect(res.body).toEqual(await read(kb.kbId));
    expect(res.headers.get('etag')).toBe((await call(h.app, 'GET', `/v1/knowledge-bases/${kb.kbId}`, { key })).headers.get('etag'));
  });

  it('leaves out a repeated source and keeps the one already there', async () => {
    const kb = await createKb(h, key, 'Answer', [textsField(['same'])]);
    const res = await patchKb(h, key, kb.kbId, [textsField(['same', 'new'])]);
    expect(res.body.files.map((f: { documentId: string }) => f.documentId)).toEqual([kb.files[0].documentId, expect.any(String)]);
    expect(res.body).toEqual(await read(kb.kbId));
  });
});
