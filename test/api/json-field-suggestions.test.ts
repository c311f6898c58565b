import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { call, expectErrorBody } from './support.js';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws_suggest');
});
afterAll(async () => {
  await h.close();
});

const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

describe('"did you mean" for JSON bodies, as for form fields', () => {
  it.each([
    ['a search', 'POST', '/v1/knowledge-bases/kb_any/search', { query: 'refunds', top_k: 3 }, '/v1/knowledge-bases', 'request', 'unknown field "top_k"; did you mean "topK"?'],
    ['a search filter', 'POST', '/v1/knowledge-bases/kb_any/search', { query: 'refunds', filter: { documentId: ['doc_a'] } }, '/v1/knowledge-bases', 'filter', 'unknown field "documentId"; did you mean "documentIds"?'],
    ['a metadata PATCH', 'PATCH', '/v1/knowledge-bases/kb_any/documents/doc_any', { meta_data: {} }, '/v1/knowledge-bases', 'request', 'unknown field "meta_data"; did you mean "metadata"?'],
    ['a webhook', 'POST', '/v1/webhooks', { url: 'https://hooks.example.com/', event: ['source.ready'] }, '/v1/webhooks', 'request', 'unknown field "event"; did you mean "events"?'],
  ])('names the nearest field in %s', async (_label, method, path, body, collection, field, message) => {
    const res = await call(h.app, method, path, { key, ...json(body) });
    expectErrorBody(res, 400, collection, { fields: [field] });
    expect(res.body.validationErrors[field]).toBe(message);
  });

  it('names the nearest key inside a text object of the form, in the same words', async () => {
    const form = new FormData();
    form.set('knowledge_base_name', 'suggest');
    form.set('knowledge_base_texts', JSON.stringify([{ titel: 'Hours', text: 'Open 9 to 5.' }]));
    const res = await call(h.app, 'POST', '/v1/knowledge-bases', { key, body: form });
    expectErrorBody(res, 400, '/v1/knowledge-bases', { fields: ['knowledge_base_texts[0]'] });
    expect(res.body.validationErrors['knowledge_base_texts[0]']).toBe('unknown field "titel"; did you mean "title"?');
  });
});
