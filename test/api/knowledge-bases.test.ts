import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import {
  filePart,
  multipartForm,
  nameField,
  textsField,
  urlsField,
  type FormPart,
} from '../helpers/multipart-body.js';
import {
  call,
  clockPast,
  createKb,
  expectErrorBody,
  failSource,
  jobsOf,
  kbKeys,
  patchKb,
  readySource,
} from './support.js';

let h: Harness;
let key: string;
let otherKey: string;
let readOnlyKey: string;
const WS = 'ws-kb';

beforeAll(async () => {
  h = await createHarness();
  key = await h.key(WS);
  otherKey = await h.key('ws-kb-other');
  readOnlyKey = await h.key(WS, { readOnly: true });
});
afterAll(async () => h.close());

const KB_ID = /^kb_[A-Za-z0-9_-]{21}$/;
const DOC_ID = /^doc_[A-Za-z0-9_-]{21}$/;
const get = (kbId: string, k = key) => call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key: k });

describe('POST /v1/knowledge-bases', () => {
  it('returns 201 with a Location header and an empty knowledge base', async () => {
    const started = Date.now();
    const res = await call(h.app, 'POST', '/v1/knowledge-bases', { key, body: multipartForm([nameField('Support')]) });
    expect(res.status, res.text).toBe(201);
    expect(res.body.kbId).toMatch(KB_ID);
    expect(res.headers.get('Location')).toBe(`/v1/knowledge-bases/${res.body.kbId}`);
    expect(res.body).toMatchObject({
      name: 'Support',
      files: [],
      status: 'empty',
      sourceCounts: { pending: 0, processing: 0, ready: 0, failed: 0 },
    });
    expect(Date.parse(res.body.createdAt)).toBeGreaterThanOrEqual(started - 1000);
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
    expect(res.body.updatedAt).toBe(res.body.createdAt);
    expect((await get(res.body.kbId)).body).toEqual(res.body);
  });

  it('creates the first sources in order and enqueues one job per source', async () => {
    const kb = await createKb(h, key, 'With sources', [
      textsField(['first']),
      urlsField(['https://example.com/a']),
      filePart('notes.txt', 'plain words'),
    ]);
    expect(kb.files.map((f: { type: string }) => f.type)).toEqual(['text', 'url', 'file']);
    expect(kb.status).toBe('in_progress');
    expect(kb.sourceCounts.pending).toBe(3);
    const ids = (await jobsOf(h, kb.kbId)).map((j) => j.id).sort();
    expect(ids).toEqual(kb.files.map((f: { documentId: string }) => `${kb.kbId}.${f.documentId}.r1`).sort());
  });

  it('returns 400 naming knowledge_base_name when it is missing', async () => {
    const res = await call(h.app, 'POST', '/v1/knowledge-bases', { key, body: multipartForm([textsField(['x'])]) });
    expectErrorBody(res, 400, '/v1/knowledge-bases', { fields: ['knowledge_base_name'] });
  });

  it('returns 415 when the body is plain text instead of multipart or JSON', async () => {
    const res = await call(h.app, 'POST', '/v1/knowledge-bases', {
      key,
      body: JSON.stringify({ knowledge_base_name: 'json' }),
      headers: { 'Content-Type': 'text/plain' },
    });
    expectErrorBody(res, 415, '/v1/knowledge-bases', { message: 'any' });
  });

  it('returns 401 without a key', async () => {
    const res = await call(h.app, 'POST', '/v1/knowledge-bases', { body: multipartForm([nameField('x')]) });
    expectErrorBody(res, 401, '/v1/knowledge-bases');
  });
});

describe('GET /v1/knowledge-bases (list)', () => {
  const LIST_WS = 'ws-list';
  let listKey: string;
  /** kbIds of the five knowledge bases, oldest first. */
  const created: string[] = [];

  beforeAll(async () => {
    listKey = await h.key(LIST_WS);
    for (let i = 0; i < 5; i++) {
      const kb = await createKb(h, listKey, `List ${i}`, i === 0 ? [textsField(['hidden text'])] : []);
      created.push(kb.kbId);
      // Newest first needs distinct creation times.
      await clockPast(Date.parse(kb.createdAt));
    }
  });
  const newestFirst = () => [...created].reverse();
  const list = (query: string, k = listKey) => call(h.app, 'GET', `/v1/knowledge-bases${query}`, { key: k });

  it('lists newest first with the defaults page 0 and size 20', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 0, size: 20, totalCount: 5, totalPages: 1, hasNext: false, hasPrevious: false });
    expect(res.body.data.map((k: { kbId: string }) => k.kbId)).toEqual(newestFirst());
  });

  it('lists items without their sources or texts', async () => {
    const res = await list('');
    for (const item of res.body.data) {
      expect(item).not.toHaveProperty('files');
      expect(Object.keys(item).sort()).toEqual(['chunkMaxTokens', 'chunkOverlapTokens', 'createdAt', 'kbId', 'name', 'sourceCounts', 'status', 'updatedAt']);
    }
    expect(res.text).not.toContain('hidden text');
  });

  it('returns the first page with hasNext and without hasPrevious', async () => {
    const res = await list('?page=0&size=2');
    expect(res.body).toEqual({
      data: expect.any(Array),
      page: 0,
      size: 2,
      totalCount: 5,
      totalPages: 3,
      hasNext: true,
      hasPrevious: false,
    });
    expect(res.body.data.map((k: { kbId: string }) => k.kbId)).toEqual(newestFirst().slice(0, 2));
  });

  it('returns a middle page with hasNext and hasPrevious', async () => {
    const res = await list('?page=1&size=2');
    expect(res.body).toMatchObject({ page: 1, size: 2, totalCount: 5, totalPages: 3, hasNext: true, hasPrevious: true });
    expect(res.body.data.map((k: { kbId: string }) => k.kbId)).toEqual(newestFirst().slice(2, 4));
  });

  it('returns a short last page without hasNext', async () => {
    const res = await list('?page=2&size=2');
    expect(res.body).toMatchObject({ page: 2, size: 2, totalCount: 5, totalPages: 3, hasNext: false, hasPrevious: true });
    expect(res.body.data.map((k: { kbId: string }) => k.kbId)).toEqual(newestFirst().slice(4));
  });

  it('returns 200 with empty data for a page past the end', async () => {
    const res = await list('?page=3&size=2');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], page: 3, size: 2, totalCount: 5, totalPages: 3, hasNext: false, hasPrevious: true });
  });

  it('computes totalPages as ceil(total/size) when size divides the total', async () => {
    const res = await list('?size=5');
    expect(res.body).toMatchObject({ totalPages: 1, hasNext: false });
    expect(res.body.data).toHaveLength(5);
  });

  it('accepts size 100 and size 1', async () => {
    expect((await list('?size=100')).body).toMatchObject({ size: 100, totalPages: 1 });
    expect((await list('?size=1&page=4')).body).toMatchObject({ size: 1, page: 4, totalPages: 5, hasNext: false, hasPrevious: true });
  });

  it('lists only the workspace of the key', async () => {
    const res = await list('?size=100', key);
    const ids = res.body.data.map((k: { kbId: string }) => k.kbId);
    for (const id of created) expect(ids).not.toContain(id);
  });

  it('returns totalCount 0 and totalPages 0 for a workspace with no knowledge bases', async () => {
    const res = await list('', await h.key('ws-list-empty'));
    expect(res.body).toEqual({ data: [], page: 0, size: 20, totalCount: 0, totalPages: 0, hasNext: false, hasPrevious: false });
  });

  it.each([
    ['size=101', 'size'],
    ['size=0', 'size'],
    ['size=-1', 'size'],
    ['page=-1', 'page'],
    ['page=1.5', 'page'],
    ['size=2.5', 'size'],
    ['page=abc', 'page'],
    ['size=', 'size'],
    ['size=1e1', 'size'],
  ])('returns 400 with validationErrors for %s', async (query, field) => {
    expectErrorBody(await list(`?${query}`), 400, '/v1/knowledge-bases', { fields: [field] });
  });
});

describe('GET /v1/knowledge-bases/{kbId}', () => {
  let kb: { kbId: string };
  beforeAll(async () => {
    kb = await createKb(h, key, 'Readable', [textsField([{ title: 'Hours', text: '9 to 5' }])]);
  });

  it('returns 200 with the knowledge base and its sources', async () => {
    const res = await get(kb.kbId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kbId: kb.kbId, name: 'Readable', status: 'in_progress' });
    expect(res.body.files).toHaveLength(1);
    expect(res.body.files[0]).toMatchObject({ type: 'text', content: '9 to 5', title: 'Hours', status: 'pending' });
    expect(res.body.files[0].documentId).toMatch(DOC_ID);
  });

  it.each([
    ['65 characters', 'k'.repeat(65)],
    ['a colon', 'a:b'],
    ['a star', '*'],
    ['a dot', 'kb.1'],
    ['an encoded slash', 'a%2Fb'],
  ])('returns 400 with validationErrors.kbId for an id with %s', async (_label, id) => {
    expectErrorBody(await get(id), 400, '/v1/knowledge-bases', { fields: ['kbId'] });
  });

  it('returns 404, not 400, for a well-formed id of 64 characters that does not exist', async () => {
    expectErrorBody(await get('k'.repeat(64)), 404, '/v1/knowledge-bases');
  });

  it('returns 401 without a key', async () => {
    expectErrorBody(await call(h.app, 'GET', `/v1/knowledge-bases/${kb.kbId}`), 401, '/v1/knowledge-bases');
  });

  it('returns 403 for a knowledge base of another workspace', async () => {
    expectErrorBody(await get(kb.kbId, otherKey), 403, '/v1/knowledge-bases');
  });

  it('returns 404 for an unknown knowledge base', async () => {
    expectErrorBody(await get('kb_doesnotexist'), 404, '/v1/knowledge-bases');
  });
});

describe('PATCH /v1/knowledge-bases/{kbId}', () => {
  it('renames through knowledge_base_name and moves updatedAt forward', async () => {
    const kb = await createKb(h, key, 'Old name');
    await clockPast(Date.parse(kb.updatedAt));
    const res = await patchKb(h, key, kb.kbId, [nameField('New name')]);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ kbId: kb.kbId, name: 'New name', createdAt: kb.createdAt, files: [] });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThan(Date.parse(kb.updatedAt));
    expect((await get(kb.kbId)).body).toEqual(res.body);
  });

  it('renames through the alias field name', async () => {
    const kb = await createKb(h, key, 'Old name');
    const res = await patchKb(h, key, kb.kbId, [nameField('Alias name', 'name')]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.name).toBe('Alias name');
  });

  it('accepts a name of exactly 512 characters', async () => {
    const kb = await createKb(h, key, 'Short');
    const res = await patchKb(h, key, kb.kbId, [nameField('n'.repeat(512))]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.name).toHaveLength(512);
  });

  it('accepts a name of 512 characters outside the BMP (characters, not UTF-16 units)', async () => {
    const kb = await createKb(h, key, 'Short');
    const res = await patchKb(h, key, kb.kbId, [nameField('😀'.repeat(512))]);
    expect(res.status, res.text).toBe(200);
    expect([...res.body.name]).toHaveLength(512);
  });

  it('adds texts given as strings and as {title, text} objects', async () => {
    const kb = await createKb(h, key, 'Texts');
    const res = await patchKb(h, key, kb.kbId, [textsField(['plain text', { title: 'Refunds', text: 'Within 30 days' }])]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.files).toHaveLength(2);
    expect(res.body.files[0]).toMatchObject({ type: 'text', content: 'plain text', status: 'pending' });
    expect(res.body.files[0]).not.toHaveProperty('title');
    expect(res.body.files[1]).toMatchObject({ type: 'text', content: 'Within 30 days', title: 'Refunds', status: 'pending' });
    expect(res.body.sourceCounts).toEqual({ pending: 2, processing: 0, ready: 0, failed: 0 });
    expect(res.body.status).toBe('in_progress');
  });

  it('adds URLs in array order', async () => {
    const kb = await createKb(h, key, 'URLs');
    const urls = ['https://example.com/faq', 'http://example.org/pricing?x=1'];
    const res = await patchKb(h, key, kb.kbId, [urlsField(urls)]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.files.map((f: { type: string; content: string }) => [f.type, f.content])).toEqual([
      ['url', urls[0]],
      ['url', urls[1]],
    ]);
  });

  it('adds files sent as knowledge_base_files and knowledge_base_files.items, repeated', async () => {
    const kb = await createKb(h, key, 'Files');
    const files: [string, string, string, string][] = [
      ['one.txt', 'first file', 'knowledge_base_files', 'text/plain'],
      ['two.md', '# Two\n\nsecond file', 'knowledge_base_files.items', 'text/markdown'],
      ['three.html', '<!doctype html><html><body>third</body></html>', 'knowledge_base_files', 'text/html'],
      ['four.txt', 'fourth file', 'knowledge_base_files.items', 'text/plain'],
    ];
    const res = await patchKb(h, key, kb.kbId, files.map(([name, data, field]) => filePart(name, data, { field })));
    expect(res.status, res.text).toBe(200);
    const got = res.body.files.map((f: { type: string; content: string; mimeType: string; sizeBytes: number }) => [
      f.type,
      f.content,
      f.mimeType,
      f.sizeBytes,
    ]);
    expect(got).toEqual(files.map(([name, data, , mime]) => ['file', name, mime, Buffer.byteLength(data)]));
  });

  it('orders files[] as existing sources, then texts, URLs and files in part order', async () => {
    const kb = await createKb(h, key, 'Order', [textsField(['existing'])]);
    const parts: FormPart[] = [
      filePart('a.txt', 'file a'),
      urlsField(['https://example.com/u1', 'https://example.com/u2']),
      filePart('b.txt', 'file b', { field: 'knowledge_base_files.items' }),
      textsField(['t1', { title: 'T2', text: 't2' }]),
      nameField('Order renamed'),
      filePart('c.txt', 'file c'),
    ];
    const res = await patchKb(h, key, kb.kbId, parts);
    expect(res.status, res.text).toBe(200);
    expect(res.body.name).toBe('Order renamed');
    expect(res.body.files.map((f: { content: string }) => f.content)).toEqual([
      'existing',
      't1',
      't2',
      'https://example.com/u1',
      'https://example.com/u2',
      'a.txt',
      'b.txt',
      'c.txt',
    ]);
    expect(res.body.files[0].documentId).toBe(kb.files[0].documentId);
    expect((await get(kb.kbId)).body.files).toEqual(res.body.files);
  });

  it('enqueues one job per new source with a deterministic id, named by its type, with only references, type and size in its data', async () => {
    const kb = await createKb(h, key, 'Jobs', [textsField(['before'])]);
    const before = new Set((await jobsOf(h, kb.kbId)).map((j) => j.id));
    const secret = 'FILE-BYTES-MUST-NOT-BE-IN-THE-JOB';
    const fileText = `${secret} ${'x'.repeat(10_000)}`;
    const res = await patchKb(h, key, kb.kbId, [
      textsField(['new text']),
      urlsField(['https://example.com/job']),
      filePart('job.txt', fileText),
      filePart('job.html', '<!doctype html><html><head><title>Job</title></head><body><p>Hello</p></body></html>'),
    ]);
    expect(res.status, res.text).toBe(200);
    const added = res.body.files.slice(1) as { documentId: string; type: string }[];
    const jobs = (await jobsOf(h, kb.kbId)).filter((j) => !before.has(j.id));
    expect(jobs.map((j) => j.id).sort()).toEqual(added.map((f) => `${kb.kbId}.${f.documentId}.r1`).sort());
    const [text, url, txt, html] = added.map((f) => jobs.find((j) => j.id === `${kb.kbId}.${f.documentId}.r1`)!);
    expect([text, url, txt, html].map((j) => j!.name)).toEqual(['text', 'url', 'txt', 'html']);
    expect(text!.data).toEqual({ workspaceId: WS, kbId: kb.kbId, documentId: added[0]!.documentId, run: 1, jobType: 'text', sizeBytes: 8 });
    expect(url!.data).toEqual({ workspaceId: WS, kbId: kb.kbId, documentId: added[1]!.documentId, run: 1, jobType: 'url' });
    expect(txt!.data).toMatchObject({ jobType: 'txt', sizeBytes: Buffer.byteLength(fileText) });
    for (const job of jobs) {
      expect(JSON.stringify(job.data)).not.toContain(secret);
      expect(JSON.stringify(job.data)).not.toContain('example.com');
      expect(JSON.stringify(job.data).length).toBeLessThan(300);
    }
  });

  describe('400 leaves the knowledge base as it was', () => {
    const cases: [string, FormPart[], string[]][] = [
      ['none of the fields', [], []],
      ['an unknown text field', [textsField(['ok']), { name: 'colour', value: 'blue' }], ['colour']],
      ['an unknown file field', [filePart('a.txt', 'x', { field: 'attachment' })], ['attachment']],
      // The workspace comes from the key and the knowledge base from the path, never from the body.
      ['a tenantId field naming another workspace', [textsField(['ok']), { name: 'tenantId', value: 'ws_other' }], ['tenantId']],
      ['a workspaceId field naming another workspace', [textsField(['ok']), { name: 'workspaceId', value: 'ws_other' }], ['workspaceId']],
      ['a kbId field naming another knowledge base', [{ name: 'kbId', value: 'kb_other' }, textsField(['ok'])], ['kbId']],
      ['invalid JSON in knowledge_base_texts', [{ name: 'knowledge_base_texts', value: '["unterminated' }], ['knowledge_base_texts']],
      ['an object instead of an array in knowledge_base_texts', [{ name: 'knowledge_base_texts', value: '{"text":"x"}' }], ['knowledge_base_texts']],
      ['a string instead of an array in knowledge_base_texts', [{ name: 'knowledge_base_texts', value: 'just words' }], ['knowledge_base_texts']],
      ['invalid JSON in knowledge_base_urls', [{ name: 'knowledge_base_urls', value: '[https://example.com]' }], ['knowledge_base_urls']],
      ['an object instead of an array in knowledge_base_urls', [{ name: 'knowledge_base_urls', value: '{"url":"https://example.com"}' }], ['knowledge_base_urls']],
      ['an empty text', [textsField([''])], ['knowledge_base_texts[0]']],
      ['a blank text', [textsField(['ok', '   '])], ['knowledge_base_texts[1]']],
      ['an empty text in an object', [textsField([{ title: 't', text: '' }])], ['knowledge_base_texts[0]']],
      ['a text item with extra keys', [textsField([{ title: 't', text: 'x', extra: 1 }])], ['knowledge_base_texts[0]']],
      ['a text item of the wrong type', [textsField([42])], ['knowledge_base_texts[0]']],
      ['a relative URL', [urlsField(['/faq'])], ['knowledge_base_urls[0]']],
      ['an ftp: URL', [urlsField(['ftp://example.com/file'])], ['knowledge_base_urls[0]']],
      ['a file: URL', [urlsField(['file:///etc/passwd'])], ['knowledge_base_urls[0]']],
      ['a URL with user:pw@', [urlsField(['https://user:pw@example.com/'])], ['knowledge_base_urls[0]']],
      ['a bad URL after a good one', [urlsField(['https://example.com/ok', 'javascript:alert(1)'])], ['knowledge_base_urls[1]']],
      ['a duplicate knowledge_base_texts field', [textsField(['one']), textsField(['two'])], ['knowledge_base_texts']],
      ['a duplicate knowledge_base_urls field', [urlsField(['https://a.example/']), urlsField(['https://b.example/'])], ['knowledge_base_urls']],
      ['a name of 513 characters', [nameField('n'.repeat(513))], ['knowledge_base_name']],
      ['an empty name', [nameField('')], ['knowledge_base_name']],
      ['both knowledge_base_name and its alias name', [nameField('one'), nameField('two', 'name')], ['knowledge_base_name']],
    ];

    let kb: { kbId: string };
    beforeAll(async () => {
      kb = await createKb(h, key, 'Untouched', [textsField(['kept'])]);
    });

    it.each(cases)('returns 400 for %s', async (_label, parts, fields) => {
      const before = (await get(kb.kbId)).body;
      const jobsBefore = (await jobsOf(h, kb.kbId)).length;
      const keysBefore = (await kbKeys(h, kb.kbId)).sort();
      const res = await patchKb(h, key, kb.kbId, parts);
      expectErrorBody(res, 400, '/v1/knowledge-bases', { fields });
      if (fields.length === 0) expect(res.body.validationErrors ?? {}).toBeTypeOf('object');
      expect((await get(kb.kbId)).body).toEqual(before);
      expect((await jobsOf(h, kb.kbId)).length).toBe(jobsBefore);
      expect((await kbKeys(h, kb.kbId)).sort()).toEqual(keysBefore);
    });
  });

  it('returns 415 for a text/plain body holding JSON and changes nothing', async () => {
    const kb = await createKb(h, key, 'Json');
    const res = await call(h.app, 'PATCH', `/v1/knowledge-bases/${kb.kbId}`, {
      key,
      body: JSON.stringify({ knowledge_base_name: 'renamed', knowledge_base_texts: ['x'] }),
      headers: { 'Content-Type': 'text/plain' },
    });
    expectErrorBody(res, 415, '/v1/knowledge-bases', { message: 'any' });
    expect((await get(kb.kbId)).body).toEqual(kb);
  });

  it('returns 415 for a urlencoded form', async () => {
    const kb = await createKb(h, key, 'Urlencoded');
    const res = await call(h.app, 'PATCH', `/v1/knowledge-bases/${kb.kbId}`, {
      key,
      body: 'knowledge_base_name=renamed',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expectErrorBody(res, 415, '/v1/knowledge-bases', { message: 'any' });
    expect((await get(kb.kbId)).body.name).toBe('Urlencoded');
  });

  it('returns 404 for an unknown knowledge base', async () => {
    expectErrorBody(await patchKb(h, key, 'kb_missing', [nameField('x')]), 404, '/v1/knowledge-bases');
  });

  it('returns 403 for a knowledge base of another workspace and changes nothing', async () => {
    const kb = await createKb(h, key, 'Mine');
    expectErrorBody(await patchKb(h, otherKey, kb.kbId, [nameField('Theirs'), textsField(['x'])]), 403, '/v1/knowledge-bases');
    expect((await get(kb.kbId)).body).toEqual(kb);
    expect(await jobsOf(h, kb.kbId)).toHaveLength(0);
  });

  it('returns 400 with validationErrors.kbId for a malformed kbId', async () => {
    expectErrorBody(await patchKb(h, key, 'a:b', [nameField('x')]), 400, '/v1/knowledge-bases', { fields: ['kbId'] });
  });
});

describe('DELETE /v1/knowledge-bases/{kbId}', () => {
  it('returns 204 without a body, then 404, and leaves no key of the knowledge base but its expiring feed', async () => {
    const kb = await createKb(h, key, 'Doomed', [
      textsField(['will be ready', 'stays pending']),
      urlsField(['https://example.com/doomed']),
      filePart('doomed.txt', 'file bytes'),
    ]);
    await readySource(h, kb.kbId, kb.files[0].documentId, 'extracted words');
    expect((await kbKeys(h, kb.kbId)).some((k) => k.includes(':text:'))).toBe(true);
    expect((await kbKeys(h, kb.kbId)).some((k) => k.includes(':blob:'))).toBe(true);
    expect(await h.redis.zrange(h.store.keys.workspaceKbs(WS), 0, -1)).toContain(kb.kbId);

    const res = await call(h.app, 'DELETE', `/v1/knowledge-bases/${kb.kbId}`, { key });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');

    expectErrorBody(await get(kb.kbId), 404, '/v1/knowledge-bases');
    expectErrorBody(await call(h.app, 'DELETE', `/v1/knowledge-bases/${kb.kbId}`, { key }), 404, '/v1/knowledge-bases');
    // The change feed stays for its retention, holding one knowledge_base.deleted for its consumers.
    // The feed, and the outbox holding the events no relay has taken yet (none runs here), both expiring.
    const feed = [h.store.keys.changes(kb.kbId), h.store.keys.changesInfo(kb.kbId), h.store.keys.outbox(kb.kbId), h.store.keys.outboxInfo(kb.kbId)];
    expect((await kbKeys(h, kb.kbId)).sort()).toEqual(feed.sort());
    for (const k of feed) expect(await h.redis.ttl(k)).toBeGreaterThan(0);
    expect(await h.redis.xlen(feed[0]!)).toBe(1);
    expect(await h.redis.zrange(h.store.keys.workspaceKbs(WS), 0, -1)).not.toContain(kb.kbId);
    const listed = await call(h.app, 'GET', '/v1/knowledge-bases?size=100', { key });
    expect(listed.body.data.map((k: { kbId: string }) => k.kbId)).not.toContain(kb.kbId);
  });

  it('returns 403 for a knowledge base of another workspace and keeps it', async () => {
    const kb = await createKb(h, key, 'Protected');
    expectErrorBody(await call(h.app, 'DELETE', `/v1/knowledge-bases/${kb.kbId}`, { key: otherKey }), 403, '/v1/knowledge-bases');
    expect((await get(kb.kbId)).status).toBe(200);
  });

  it('returns 404 for an unknown knowledge base', async () => {
    expectErrorBody(await call(h.app, 'DELETE', '/v1/knowledge-bases/kb_missing', { key }), 404, '/v1/knowledge-bases');
  });

  it('returns 400 with validationErrors.kbId for a malformed kbId', async () => {
    const res = await call(h.app, 'DELETE', `/v1/knowledge-bases/${'k'.repeat(65)}`, { key });
    expectErrorBody(res, 400, '/v1/knowledge-bases', { fields: ['kbId'] });
  });
});

describe('documents', () => {
  const doc = (kbId: string, documentId: string, k = key) =>
    call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/documents/${documentId}`, { key: k });
  const retry = (kbId: string, documentId: string, k = key) =>
    call(h.app, 'POST', `/v1/knowledge-bases/${kbId}/documents/${documentId}/retry`, { key: k });

  it('returns a pending document with text null', async () => {
    const kb = await createKb(h, key, 'Docs', [textsField([{ title: 'Pending', text: 'not yet extracted' }])]);
    const res = await doc(kb.kbId, kb.files[0].documentId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...kb.files[0], text: null });
    expect(res.body.status).toBe('pending');
  });

  it('returns a ready document with its extracted text', async () => {
    const kb = await createKb(h, key, 'Docs', [textsField(['source words'])]);
    await readySource(h, kb.kbId, kb.files[0].documentId, 'Extracted words.');
    const res = await doc(kb.kbId, kb.files[0].documentId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ready', text: 'Extracted words.', charCount: 16 });
  });

  it('returns 404 for an unknown document, 403 for another workspace and 400 for a malformed id', async () => {
    const kb = await createKb(h, key, 'Docs', [textsField(['x'])]);
    expectErrorBody(await doc(kb.kbId, 'doc_missing'), 404, '/v1/knowledge-bases');
    expectErrorBody(await doc(kb.kbId, kb.files[0].documentId, otherKey), 403, '/v1/knowledge-bases');
    expectErrorBody(await doc(kb.kbId, 'doc:1'), 400, '/v1/knowledge-bases', { fields: ['documentId'] });
    expectErrorBody(await doc('kb_missing', kb.files[0].documentId), 404, '/v1/knowledge-bases');
  });

  it('deletes one document with 204 and leaves the others', async () => {
    const kb = await createKb(h, key, 'Docs', [textsField(['keep', 'drop']), filePart('drop.txt', 'file to drop')]);
    const [keep, drop, dropFile] = kb.files as { documentId: string }[];
    for (const d of [drop!, dropFile!]) {
      const res = await call(h.app, 'DELETE', `/v1/knowledge-bases/${kb.kbId}/documents/${d.documentId}`, { key });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
    }
    const after = (await get(kb.kbId)).body;
    expect(after.files.map((f: { documentId: string }) => f.documentId)).toEqual([keep!.documentId]);
    expect(after.sourceCounts).toEqual({ pending: 1, processing: 0, ready: 0, failed: 0 });
    expectErrorBody(await doc(kb.kbId, drop!.documentId), 404, '/v1/knowledge-bases');
    const left = await kbKeys(h, kb.kbId);
    expect(left.filter((k) => k.includes(drop!.documentId) || k.includes(dropFile!.documentId))).toEqual([]);
    const again = await call(h.app, 'DELETE', `/v1/knowledge-bases/${kb.kbId}/documents/${drop!.documentId}`, { key });
    expectErrorBody(again, 404, '/v1/knowledge-bases');
  });

  it('returns 409 when retrying a source that is pending or ready', async () => {
    const kb = await createKb(h, key, 'Retry', [textsField(['pending one', 'ready one'])]);
    await readySource(h, kb.kbId, kb.files[1].documentId, 'done');
    expectErrorBody(await retry(kb.kbId, kb.files[0].documentId), 409, '/v1/knowledge-bases', { message: 'any' });
    expectErrorBody(await retry(kb.kbId, kb.files[1].documentId), 409, '/v1/knowledge-bases', { message: 'any' });
  });

  it('returns 202 when retrying a failed source and enqueues a job with a new id', async () => {
    const kb = await createKb(h, key, 'Retry', [textsField(['will fail'])]);
    const documentId = kb.files[0].documentId as string;
    await failSource(h, kb.kbId, documentId);
    const failed = (await get(kb.kbId)).body;
    expect(failed.files[0]).toMatchObject({ status: 'failed', error: { code: 'fetch_failed' } });
    expect(failed.status).toBe('partial');

    const res = await retry(kb.kbId, documentId);
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ documentId, status: 'pending' });
    expect(res.body).not.toHaveProperty('error');
    const after = (await get(kb.kbId)).body;
    expect(after.sourceCounts).toEqual({ pending: 1, processing: 0, ready: 0, failed: 0 });

    const ids = (await jobsOf(h, kb.kbId)).map((j) => j.id).sort();
    expect(ids).toEqual([`${kb.kbId}.${documentId}.r1`, `${kb.kbId}.${documentId}.r2`]);
    const job = await h.queue.getJob(`${kb.kbId}.${documentId}.r2`);
    expect(job?.data).toEqual({ workspaceId: WS, kbId: kb.kbId, documentId, run: 2, jobType: 'text', sizeBytes: 9 });
    expect(job?.name).toBe('text');
    expectErrorBody(await retry(kb.kbId, documentId), 409, '/v1/knowledge-bases', { message: 'any' });
  });

  it('returns 404 when retrying an unknown document', async () => {
    const kb = await createKb(h, key, 'Retry');
    expectErrorBody(await retry(kb.kbId, 'doc_missing'), 404, '/v1/knowledge-bases');
  });
});

describe('key rights', () => {
  let kb: { kbId: string; files: { documentId: string }[] };
  beforeAll(async () => {
    kb = await createKb(h, key, 'Read only', [textsField(['failing text'])]);
    await failSource(h, kb.kbId, kb.files[0]!.documentId);
  });

  it('lets a read-only key read the list, the knowledge base and a document', async () => {
    expect((await call(h.app, 'GET', '/v1/knowledge-bases', { key: readOnlyKey })).status).toBe(200);
    expect((await get(kb.kbId, readOnlyKey)).status).toBe(200);
    const d = await call(h.app, 'GET', `/v1/knowledge-bases/${kb.kbId}/documents/${kb.files[0]!.documentId}`, { key: readOnlyKey });
    expect(d.status).toBe(200);
  });

  it.each([
    ['POST', '/v1/knowledge-bases', true],
    ['PATCH', '/v1/knowledge-bases/{kb}', true],
    ['DELETE', '/v1/knowledge-bases/{kb}', false],
    ['DELETE', '/v1/knowledge-bases/{kb}/documents/{doc}', false],
    ['POST', '/v1/knowledge-bases/{kb}/documents/{doc}/retry', false],
  ] as const)('returns 403 to a read-only key on %s %s and changes nothing', async (method, template, withForm) => {
    const path = template.replace('{kb}', kb.kbId).replace('{doc}', kb.files[0]!.documentId);
    const before = (await get(kb.kbId)).body;
    const jobsBefore = (await jobsOf(h, kb.kbId)).length;
    const res = await call(h.app, method, path, {
      key: readOnlyKey,
      ...(withForm ? { body: multipartForm([nameField('read-only rename'), textsField(['x'])]) } : {}),
    });
    expectErrorBody(res, 403, '/v1/knowledge-bases', { fields: ['request'] });
    expect(res.body.validationErrors.request).toBe('this API key is read-only');
    expect((await get(kb.kbId)).body).toEqual(before);
    expect((await jobsOf(h, kb.kbId)).length).toBe(jobsBefore);
  });

  it("says why in validationErrors when the knowledge base is another workspace's", async () => {
    const other = await h.key('ws-someone-else');
    const res = await get(kb.kbId, other);
    expectErrorBody(res, 403, '/v1/knowledge-bases', { fields: ['request'] });
    expect(res.body.validationErrors.request).toBe("the resource belongs to another workspace than this key's");
  });

  it('returns 401 once the key is revoked', async () => {
    const revokable = await h.key('ws-revoke');
    const mine = await createKb(h, revokable, 'Revoke');
    expect((await get(mine.kbId, revokable)).status).toBe(200);
    const [record] = await h.store.apiKeys.list('ws-revoke');
    expect(await h.store.apiKeys.revoke(record!.keyId)).toBe(true);
    expectErrorBody(await get(mine.kbId, revokable), 401, '/v1/knowledge-bases');
    expectErrorBody(await patchKb(h, revokable, mine.kbId, [nameField('after revoke')]), 401, '/v1/knowledge-bases');
  });
});
