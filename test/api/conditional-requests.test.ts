import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { multipartForm, nameField, textsField } from '../helpers/multipart-body.js';
import { call, createKb, expectErrorBody, jobsOf } from './support.js';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws-conditional');
});
afterAll(async () => h.close());

const kbPath = (kbId: string): string => `/v1/knowledge-bases/${kbId}`;
const etagOf = async (kbId: string): Promise<string> => (await call(h.app, 'GET', kbPath(kbId), { key })).headers.get('etag')!;
const rename = (kbId: string, name: string) => call(h.app, 'PATCH', kbPath(kbId), { key, body: multipartForm([nameField(name)]) });

describe('DELETE of a knowledge base with If-Match', () => {
  it('deletes when the ETag is current', async () => {
    const kb = await createKb(h, key, 'Current');
    const res = await call(h.app, 'DELETE', kbPath(kb.kbId), { key, headers: { 'If-Match': await etagOf(kb.kbId) } });
    expect(res.status, res.text).toBe(204);
    expect((await call(h.app, 'GET', kbPath(kb.kbId), { key })).status).toBe(404);
  });

  it('answers 412 with the current ETag to a stale one and keeps the knowledge base', async () => {
    const kb = await createKb(h, key, 'Stale', [textsField(['kept'])]);
    const stale = await etagOf(kb.kbId);
    await rename(kb.kbId, 'Changed meanwhile');
    const current = await etagOf(kb.kbId);
    const res = await call(h.app, 'DELETE', kbPath(kb.kbId), { key, headers: { 'If-Match': stale } });
    expectErrorBody(res, 412, '/v1/knowledge-bases');
    expect(res.headers.get('etag')).toBe(current);
    const after = await call(h.app, 'GET', kbPath(kb.kbId), { key });
    expect(after.status).toBe(200);
    expect(after.body.files).toHaveLength(1);
  });

  it('compares strongly: the weak form of the current ETag does not match', async () => {
    const kb = await createKb(h, key, 'Weak');
    const res = await call(h.app, 'DELETE', kbPath(kb.kbId), { key, headers: { 'If-Match': `W/${await etagOf(kb.kbId)}` } });
    expectErrorBody(res, 412, '/v1/knowledge-bases');
    expect((await call(h.app, 'GET', kbPath(kb.kbId), { key })).status).toBe(200);
  });

  it('refuses in the store itself when the revision moved after the check', async () => {
    const kb = await createKb(h, key, 'Race');
    const meta = (await h.store.kbs.getMeta(kb.kbId))!;
    await rename(kb.kbId, 'moved');
    await expect(h.store.kbs.delete('ws-conditional', kb.kbId, meta.rev)).rejects.toMatchObject({ code: 'precondition_failed', currentRev: meta.rev + 1 });
    expect(await h.store.kbs.getMeta(kb.kbId)).not.toBeNull();
  });

  it('deletes without If-Match as before', async () => {
    const kb = await createKb(h, key, 'Unconditional');
    expect((await call(h.app, 'DELETE', kbPath(kb.kbId), { key })).status).toBe(204);
  });
});

describe('DELETE of a document with If-Match', () => {
  it("answers 412 with the knowledge base's current ETag to a stale one and keeps the document", async () => {
    const kb = await createKb(h, key, 'Docs', [textsField(['one', 'two'])]);
    const stale = await etagOf(kb.kbId);
    await rename(kb.kbId, 'Docs renamed');
    const doc = `${kbPath(kb.kbId)}/documents/${kb.files[0].documentId}`;
    const res = await call(h.app, 'DELETE', doc, { key, headers: { 'If-Match': stale } });
    expectErrorBody(res, 412, '/v1/knowledge-bases');
    expect(res.headers.get('etag')).toBe(await etagOf(kb.kbId));
    expect((await call(h.app, 'GET', doc, { key })).status).toBe(200);
    const ok = await call(h.app, 'DELETE', doc, { key, headers: { 'If-Match': await etagOf(kb.kbId) } });
    expect(ok.status, ok.text).toBe(204);
    expect((await call(h.app, 'GET', doc, { key })).status).toBe(404);
  });
});

describe('errors that say what to do', () => {
  it('names the missing knowledge base, document and webhook in a 404', async () => {
    const noKb = await call(h.app, 'GET', kbPath('kb_gone'), { key });
    expectErrorBody(noKb, 404, '/v1/knowledge-bases', { fields: ['kbId'] });
    expect(noKb.body.validationErrors.kbId).toContain('kb_gone');
    const kb = await createKb(h, key, 'Has no such doc');
    const noDoc = await call(h.app, 'GET', `${kbPath(kb.kbId)}/documents/doc_gone`, { key });
    expectErrorBody(noDoc, 404, '/v1/knowledge-bases', { fields: ['documentId'] });
    expect(noDoc.body.validationErrors.documentId).toContain('doc_gone');
    const noHook = await call(h.app, 'DELETE', '/v1/webhooks/wh_gone', { key });
    expectErrorBody(noHook, 404, '/v1/webhooks', { fields: ['webhookId'] });
  });

  it('suggests the nearest field name for an unknown form field, and changes nothing', async () => {
    const kb = await createKb(h, key, 'Typos');
    const jobs = (await jobsOf(h, kb.kbId)).length;
    const res = await call(h.app, 'PATCH', kbPath(kb.kbId), {
      key,
      body: multipartForm([{ name: 'knowledge_base_text', value: '["x"]' }, { name: 'texts', value: '["y"]' }]),
    });
    expectErrorBody(res, 400, '/v1/knowledge-bases', { fields: ['knowledge_base_text', 'texts'] });
    expect(res.body.validationErrors.knowledge_base_text).toContain('"knowledge_base_texts"');
    expect(res.body.validationErrors.texts).toContain('"knowledge_base_texts"');
    expect((await jobsOf(h, kb.kbId)).length).toBe(jobs);
  });

  it('suggests the nearest field name for an unknown webhook field', async () => {
    const res = await call(h.app, 'POST', '/v1/webhooks', {
      key,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/hook', event: ['source.ready'] }),
    });
    expect(res.status, res.text).toBe(400);
    expect(JSON.stringify(res.body.validationErrors)).toContain('did you mean \\"events\\"?');
  });
});
