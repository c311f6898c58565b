import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_BODY_BYTES } from '../../api/http/json-source-body.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { multipartForm, nameField } from '../helpers/multipart-body.js';
import { call, expectErrorBody, jobsOf, kbKeys, type ApiResponse } from './support.js';

const KB_PATH = '/v1/knowledge-bases';
let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws_json');
});
afterAll(async () => {
  await h.close();
});

const send = (method: string, path: string, body: unknown, opts: { k?: string; headers?: Record<string, string> } = {}): Promise<ApiResponse> =>
  call(h.app, method, path, {
    key: opts.k ?? key,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...opts.headers },
  });

const shape = (files: { type: string; content: string; title?: string; status: string }[]) => files.map((f) => ({ type: f.type, content: f.content, title: f.title, status: f.status }));

describe('POST /v1/knowledge-bases with a JSON body', () => {
  it('creates the knowledge base and its sources as the same fields in a multipart form do', async () => {
    const fields = {
      knowledge_base_name: 'Clinic FAQ',
      knowledge_base_texts: ['Parking is free.', { title: 'Cancellations', text: 'Cancel 24 hours ahead.', metadata: { team: 'front' } }],
      knowledge_base_urls: ['https://example.com/faq'],
      chunk_max_tokens: 256,
      chunk_overlap_tokens: 32,
    };
    const res = await send('POST', KB_PATH, fields);
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('location')).toBe(`${KB_PATH}/${res.body.kbId}`);
    expect(res.body).toMatchObject({ name: 'Clinic FAQ', chunkMaxTokens: 256, chunkOverlapTokens: 32 });

    const form = await call(h.app, 'POST', KB_PATH, {
      key,
      body: multipartForm([
        nameField('Clinic FAQ'),
        { name: 'knowledge_base_texts', value: JSON.stringify(fields.knowledge_base_texts) },
        { name: 'knowledge_base_urls', value: JSON.stringify(fields.knowledge_base_urls) },
        { name: 'chunk_max_tokens', value: '256' },
        { name: 'chunk_overlap_tokens', value: '32' },
      ]),
    });
    expect(form.status, form.text).toBe(201);
    expect(shape(res.body.files)).toEqual(shape(form.body.files));
    expect(res.body.files[1].metadata).toEqual({ team: 'front' });
    expect((await jobsOf(h, res.body.kbId)).length).toBe((await jobsOf(h, form.body.kbId)).length);
  });

  it('accepts the name alias and settings written as strings of digits, as the form does', async () => {
    const res = await send('POST', KB_PATH, { name: 'Alias', auto_refresh_hours: '24' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.name).toBe('Alias');
  });

  it.each([
    ['an unknown field, naming the form field in either style', { knowledge_base_name: 'x', knowledgeBaseTexts: ['a'] }, 'knowledgeBaseTexts', 'unknown field; did you mean "knowledge_base_texts"?'],
    ['files, which only multipart carries', { knowledge_base_name: 'x', knowledge_base_files: ['a.pdf'] }, 'knowledge_base_files', /multipart\/form-data/],
    ['texts that are not an array', { knowledge_base_name: 'x', knowledge_base_texts: 'Parking is free.' }, 'knowledge_base_texts', 'must be a JSON array'],
    ['an empty text, with the form\'s message', { knowledge_base_name: 'x', knowledge_base_texts: ['ok', ' '] }, 'knowledge_base_texts[1]', 'text must not be empty'],
    ['a URL the URL policy refuses', { knowledge_base_name: 'x', knowledge_base_urls: ['ftp://example.com/a'] }, 'knowledge_base_urls[0]', /http or https/],
    ['a chunk bound out of range', { knowledge_base_name: 'x', chunk_max_tokens: 5 }, 'chunk_max_tokens', /whole number from/],
    ['a name that is not a string', { knowledge_base_name: 7 }, 'knowledge_base_name', 'must be a string'],
    ['no name', { knowledge_base_texts: ['a'] }, 'knowledge_base_name', 'is required'],
    ['a body that is an array', [{ knowledge_base_name: 'x' }], 'request', 'the body must be a JSON object'],
    ['a body that is not JSON', '{"knowledge_base_name": ', 'request', 'the body must be a JSON object'],
  ])('answers 400 for %s and creates nothing', async (_label, body, field, message) => {
    const k = await h.key(`ws_json_bad_${field.replace(/\W/g, '')}_${Object.keys(body).length}`);
    const res = await send('POST', KB_PATH, body, { k });
    expectErrorBody(res, 400, KB_PATH, { fields: [field] });
    if (typeof message === 'string') expect(res.body.validationErrors[field]).toBe(message);
    else expect(res.body.validationErrors[field]).toMatch(message);
    expect((await call(h.app, 'GET', KB_PATH, { key: k })).body.totalCount).toBe(0);
  });

  it(`answers 413 for a body over ${MAX_JSON_BODY_BYTES} bytes`, async () => {
    const k = await h.key('ws_json_big');
    const res = await send('POST', KB_PATH, { knowledge_base_name: 'big', knowledge_base_texts: ['x'.repeat(MAX_JSON_BODY_BYTES)] }, { k });
    expectErrorBody(res, 413, KB_PATH, { message: 'any' });
    expect((await call(h.app, 'GET', KB_PATH, { key: k })).body.totalCount).toBe(0);
  });

  it('counts against the sources per knowledge base quota as multipart does', async () => {
    const k = await h.key('ws_json_quota');
    await h.store.quotas.set('ws_json_quota', { sourcesPerKnowledgeBase: 2 });
    const res = await send('POST', KB_PATH, { knowledge_base_name: 'q', knowledge_base_texts: ['a', 'b', 'c'] }, { k });
    expectErrorBody(res, 409, KB_PATH, { message: 'any' });
    const ok = await send('POST', KB_PATH, { knowledge_base_name: 'q', knowledge_base_texts: ['a', 'b'] }, { k });
    expect(ok.status, ok.text).toBe(201);
    const more = await send('PATCH', `${KB_PATH}/${ok.body.kbId}`, { knowledge_base_texts: ['c'] }, { k });
    expectErrorBody(more, 409, KB_PATH, { message: 'any' });
  });

  it('replays an Idempotency-Key for the same body in another key order, and refuses another body under it', async () => {
    const first = await send('POST', KB_PATH, { knowledge_base_name: 'Idem', knowledge_base_texts: [{ title: 't', text: 'x' }] }, { headers: { 'Idempotency-Key': 'json-1' } });
    expect(first.status, first.text).toBe(201);
    const again = await send('POST', KB_PATH, '{"knowledge_base_texts":[{"text":"x","title":"t"}],  "knowledge_base_name":"Idem"}', { headers: { 'Idempotency-Key': 'json-1' } });
    expect(again.status, again.text).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.kbId).toBe(first.body.kbId);
    const other = await send('POST', KB_PATH, { knowledge_base_name: 'Idem', knowledge_base_texts: [{ title: 't', text: 'y' }] }, { headers: { 'Idempotency-Key': 'json-1' } });
    expectErrorBody(other, 422, KB_PATH, { message: 'any' });
  });
});

describe('PATCH /v1/knowledge-bases/{kbId} with a JSON body', () => {
  it('renames, adds sources after the existing ones and changes the chunk settings', async () => {
    const created = await send('POST', KB_PATH, { knowledge_base_name: 'Before', knowledge_base_texts: ['first'] });
    const res = await send('PATCH', `${KB_PATH}/${created.body.kbId}`, {
      knowledge_base_name: 'After',
      knowledge_base_texts: ['second'],
      knowledge_base_urls: [{ url: 'https://example.com/a', metadata: { k: 'v' } }],
      chunk_max_tokens: 300,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.name).toBe('After');
    expect(res.body.files.map((f: { content: string }) => f.content)).toEqual(['first', 'second', 'https://example.com/a']);
    expect(res.body.files[0].documentId).toBe(created.body.files[0].documentId);
    expect(res.body.chunkMaxTokens).toBe(300);
  });

  it('is all or nothing: a bad element leaves the knowledge base exactly as it was', async () => {
    const created = await send('POST', KB_PATH, { knowledge_base_name: 'Atomic', knowledge_base_texts: ['kept'] });
    const kbId = created.body.kbId as string;
    const keysBefore = (await kbKeys(h, kbId)).sort();
    const jobsBefore = (await jobsOf(h, kbId)).length;
    const res = await send('PATCH', `${KB_PATH}/${kbId}`, { knowledge_base_name: 'Renamed', knowledge_base_texts: ['fine', { title: 'no text' }] });
    expectErrorBody(res, 400, KB_PATH, { fields: ['knowledge_base_texts[1]'] });
    expect((await call(h.app, 'GET', `${KB_PATH}/${kbId}`, { key })).body.name).toBe('Atomic');
    expect((await kbKeys(h, kbId)).sort()).toEqual(keysBefore);
    expect((await jobsOf(h, kbId)).length).toBe(jobsBefore);
  });

  it('answers 400 naming what may be sent for an empty object', async () => {
    const created = await send('POST', KB_PATH, { knowledge_base_name: 'Empty' });
    const res = await send('PATCH', `${KB_PATH}/${created.body.kbId}`, {});
    expectErrorBody(res, 400, KB_PATH, { fields: ['request'] });
  });

  it('answers 412 for a stale If-Match, as the form does', async () => {
    const created = await send('POST', KB_PATH, { knowledge_base_name: 'Etag' });
    const etag = created.headers.get('etag')!;
    expect((await send('PATCH', `${KB_PATH}/${created.body.kbId}`, { knowledge_base_texts: ['a'] }, { headers: { 'If-Match': etag } })).status).toBe(200);
    const stale = await send('PATCH', `${KB_PATH}/${created.body.kbId}`, { knowledge_base_texts: ['b'] }, { headers: { 'If-Match': etag } });
    expectErrorBody(stale, 412, KB_PATH, { message: 'any' });
  });
});

describe('a JSON body under a small MAX_REQUEST_BYTES', () => {
  it('answers 413 past MAX_REQUEST_BYTES, as a form would', async () => {
    const small = await createHarness({ MAX_REQUEST_BYTES: '2048' });
    try {
      const k = await small.key('ws_json_small');
      const res = await call(small.app, 'POST', KB_PATH, {
        key: k,
        body: JSON.stringify({ knowledge_base_name: 'small', knowledge_base_texts: ['x'.repeat(4096)] }),
        headers: { 'content-type': 'application/json' },
      });
      expectErrorBody(res, 413, KB_PATH, { message: 'A JSON body may hold at most 2048 bytes; send files as multipart/form-data' });
    } finally {
      await small.close();
    }
  });
});
