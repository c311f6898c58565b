import { FILED_TEXT_MESSAGE } from '../../api/http/multipart.js';
import { buildZip } from '../fixtures/zip.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { filePart, multipartForm, nameField, textBytes, textsField, urlsField, type FormPart } from '../helpers/multipart-body.js';
import { call, createKb, expectErrorBody, patchKb, withDeadline, type ErrorExpectation } from './support.js';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws-uploads');
});
afterAll(async () => h.close());

const LIMIT = 26_214_400;
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c6300010000050001' +
    '0d0a2db40000000049454e44ae426082',
  'hex',
);
const MINIMAL_PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n' +
    '2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n',
  'latin1',
);
const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** A zip archive with one stored (uncompressed) entry: a zip, not a Word document. */
function storedZip(name: string, content: string): Buffer {
  return Buffer.from(buildZip([{ name, data: content, deflate: false }]));
}

function noise(size: number): Buffer {
  const buf = Buffer.alloc(size);
  let x = 0x9e3779b9;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    buf[i] = i % 97 === 0 ? 0 : x & 0xff;
  }
  return buf;
}

/** Everything a failed PATCH must leave as it was. */
async function snapshot(kbId: string) {
  const kb = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key });
  expect(kb.status).toBe(200);
  return { kb: kb.body, keys: (await h.allKeys()).sort(), jobs: await h.queue.getJobCounts() };
}

/** A small refused request answers in milliseconds; one that hangs fails its test after this. */
const ANSWER_MS = 5_000;
/** Requests that carry 25 MB get more room on a busy machine. */
const BIG_ANSWER_MS = 20_000;

async function expectAllOrNothing(
  kbId: string,
  parts: FormPart[],
  status: number,
  exp: ErrorExpectation = {},
  deadlineMs = ANSWER_MS,
) {
  const before = await snapshot(kbId);
  const res = await withDeadline(patchKb(h, key, kbId, parts), deadlineMs, `PATCH expecting ${status}`);
  expectErrorBody(res, status, '/v1/knowledge-bases', exp);
  const after = await snapshot(kbId);
  expect(after.kb).toEqual(before.kb);
  expect(after.jobs).toEqual(before.jobs);
  expect(after.keys).toEqual(before.keys);
  expect(after.keys.filter((k) => k.includes(':stage:'))).toEqual([]);
}

describe('the 25 MB per-file limit', () => {
  it('accepts a file of exactly 26,214,400 bytes and stages all of it', async () => {
    const kb = await createKb(h, key, 'Boundary');
    const res = await patchKb(h, key, kb.kbId, [filePart('exact.txt', textBytes(LIMIT))]);
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    const file = res.body.files[0];
    expect(file).toMatchObject({ type: 'file', content: 'exact.txt', mimeType: 'text/plain', sizeBytes: LIMIT, status: 'pending' });
    expect(await h.redis.strlen(h.store.keys.blob(kb.kbId, file.documentId))).toBe(LIMIT);
  });

  it('returns 413 with the source message when a file is one byte over the limit', async () => {
    const kb = await createKb(h, key, 'Over');
    const res = await patchKb(h, key, kb.kbId, [filePart('over.txt', textBytes(LIMIT + 1))]);
    expectErrorBody(res, 413, '/v1/knowledge-bases');
    expect(res.body.message).toBe('An uploaded file exceeds the per-file size limit (25 MB).');
    expect((await h.allKeys()).filter((k) => k.includes(`{kb:${kb.kbId}}`) && !k.endsWith(':meta'))).toEqual([]);
  });

  it('returns 413 on POST too and creates nothing', async () => {
    const before = (await h.allKeys()).sort();
    const res = await call(h.app, 'POST', '/v1/knowledge-bases', {
      key,
      body: multipartForm([nameField('Never'), filePart('over.txt', textBytes(LIMIT + 1))]),
    });
    expectErrorBody(res, 413, '/v1/knowledge-bases');
    expect((await h.allKeys()).sort()).toEqual(before);
  });
});

describe('type by content (415)', () => {
  let kbId: string;
  beforeAll(async () => {
    kbId = (await createKb(h, key, 'Types')).kbId;
  });

  it.each([
    ['PNG bytes named a.pdf', 'a.pdf', PNG, undefined],
    ['PNG bytes named a.md', 'a.md', PNG, 'text/markdown'],
    ['a plain zip named a.docx', 'a.docx', storedZip('hello.txt', 'hello'), DOCX_MIME],
    ['NUL-laden bytes named a.txt', 'a.txt', Buffer.from('hello\0world\0'.repeat(50), 'latin1'), 'text/plain'],
    ['random bytes named a.txt', 'a.txt', noise(4096), 'text/plain'],
    ['a Windows executable (MZ) named a.pdf', 'a.pdf', Buffer.concat([Buffer.from('MZ\x90\x00\x03\x00\x00\x00', 'latin1'), noise(2048)]), 'application/pdf'],
  ])('returns 415 with the source message for %s', async (_label, name, bytes, type) => {
    const res = await patchKb(h, key, kbId, [filePart(name, bytes, type ? { type } : {})]);
    expectErrorBody(res, 415, '/v1/knowledge-bases');
    expect(res.body.message).toBe('Uploaded file type is not supported. Allowed: PDF, TXT, HTML, Markdown, DOCX.');
  });

  it('accepts HTML bytes named x.pdf as text/html', async () => {
    const res = await patchKb(h, key, kbId, [
      filePart('x.pdf', '<!DOCTYPE html><html><head><title>T</title></head><body>Hi</body></html>', { type: 'application/pdf' }),
    ]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.files.at(-1)).toMatchObject({ content: 'x.pdf', mimeType: 'text/html' });
  });

  it('accepts a minimal PDF named y.docx as application/pdf', async () => {
    const res = await patchKb(h, key, kbId, [filePart('y.docx', MINIMAL_PDF, { type: DOCX_MIME })]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.files.at(-1)).toMatchObject({ content: 'y.docx', mimeType: 'application/pdf', sizeBytes: MINIMAL_PDF.length });
  });

  it('accepts plain text named notes.md as Markdown and named notes.txt as TXT', async () => {
    const res = await patchKb(h, key, kbId, [filePart('notes.md', '# Title\n\nbody of md'), filePart('notes.txt', '# Title\n\nbody of txt')]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.files.slice(-2).map((f: { mimeType: string }) => f.mimeType)).toEqual(['text/markdown', 'text/plain']);
  });
});

describe('all or nothing', () => {
  let kbId: string;
  beforeAll(async () => {
    kbId = (await createKb(h, key, 'Atomic', [textsField(['existing text'])])).kbId;
  });

  it('leaves the knowledge base, the queue and Redis as they were after a 415 on the last file', async () => {
    await expectAllOrNothing(
      kbId,
      [nameField('Renamed'), textsField(['new text']), filePart('good.txt', 'good file'), filePart('bad.pdf', PNG)],
      415,
    );
  });

  it('leaves everything as it was after a 415 on the first of two files', async () => {
    await expectAllOrNothing(kbId, [nameField('Renamed'), filePart('bad.docx', storedZip('a.txt', 'a')), filePart('good.txt', 'good')], 415);
  });

  it('leaves everything as it was after a 413 on the first of two files', async () => {
    await expectAllOrNothing(kbId, [filePart('big.txt', textBytes(LIMIT + 1)), filePart('good.txt', 'good')], 413, {}, BIG_ANSWER_MS);
  });

  it('leaves everything as it was after a 413 on a file that follows a good one', async () => {
    await expectAllOrNothing(
      kbId,
      [nameField('Renamed'), textsField(['new text']), filePart('good.txt', textBytes(300_000)), filePart('big.txt', textBytes(LIMIT + 1))],
      413,
      {},
      BIG_ANSWER_MS,
    );
  });

  it('leaves everything as it was after a 400 for a bad URL sent after a good file', async () => {
    await expectAllOrNothing(
      kbId,
      [nameField('Renamed'), filePart('good.txt', textBytes(300_000)), urlsField(['ftp://example.com/x'])],
      400,
      { fields: ['knowledge_base_urls[0]'] },
    );
  });

  it('leaves everything as it was after a 400 for an unknown field sent after a good file', async () => {
    await expectAllOrNothing(kbId, [filePart('good.txt', 'good'), { name: 'surprise', value: '1' }], 400, { fields: ['surprise'] });
  });

  it('says a text field sent as a file part (curl -F name=@file) must be a text field, rather than calling it unknown', async () => {
    const res = await patchKb(h, key, kbId, [filePart('texts.json', JSON.stringify(['from a file']), { field: 'knowledge_base_texts', type: 'application/json' })]);
    expect(res.status, res.text).toBe(400);
    expect(res.body.validationErrors).toEqual({ knowledge_base_texts: FILED_TEXT_MESSAGE });
  });

  it('then accepts the same good parts on their own (control)', async () => {
    const res = await patchKb(h, key, kbId, [nameField('Renamed'), textsField(['new text']), filePart('good.txt', 'good file')]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.name).toBe('Renamed');
    expect(res.body.files.map((f: { content: string }) => f.content)).toEqual(['existing text', 'new text', 'good.txt']);
  });
});

describe('refused uploads release their upload slot', () => {
  let small: Harness;
  let smallKey: string;
  beforeAll(async () => {
    small = await createHarness({ MAX_UPLOAD_CONCURRENCY: '2' });
    smallKey = await small.key('ws-slots');
  });
  afterAll(async () => small.close());

  it('keeps accepting uploads after as many refused uploads as the concurrency limit', async () => {
    const kb = await createKb(small, smallKey, 'Slots');
    // Exactly the limit, so none of them is refused for concurrency.
    const refused = Array.from({ length: 2 }, () =>
      withDeadline(patchKb(small, smallKey, kb.kbId, [filePart('bad.pdf', PNG), filePart('good.txt', 'good')]), ANSWER_MS, 'refused upload'),
    );
    const outcomes = await Promise.allSettled(refused);
    const good = await withDeadline(patchKb(small, smallKey, kb.kbId, [filePart('good.txt', 'good')]), ANSWER_MS, 'good upload');
    expect(good.status, good.text).toBe(200);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value.status : String(o.reason)))).toEqual([415, 415]);
  });
});

describe('part and file counts', () => {
  const tinyFiles = (n: number): FormPart[] => Array.from({ length: n }, (_, i) => filePart(`f${i}.txt`, `file ${i}`));

  it('accepts 100 files in one request (the per-request limit)', async () => {
    const kb = await createKb(h, key, 'Hundred');
    const res = await patchKb(h, key, kb.kbId, tinyFiles(100));
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.body.files).toHaveLength(100);
    expect(res.body.files[99].content).toBe('f99.txt');
  });

  it('returns 413 for more files than the per-request limit and keeps nothing', async () => {
    const kb = await createKb(h, key, 'Too many files');
    await expectAllOrNothing(kb.kbId, tinyFiles(101), 413, { message: 'any' });
  });

  it('returns 413 for more parts than the per-request limit and keeps nothing', async () => {
    const kb = await createKb(h, key, 'Too many parts');
    const fields: FormPart[] = Array.from({ length: 9 }, (_, i) => ({ name: `extra${i}`, value: 'x' }));
    await expectAllOrNothing(kb.kbId, [...tinyFiles(100), ...fields], 413, { message: 'any' });
  });
});

describe('file names', () => {
  let kbId: string;
  beforeAll(async () => {
    kbId = (await createKb(h, key, 'Names')).kbId;
  });
  const upload = async (name: string) => {
    // Each upload's own bytes: the same bytes again would be the same source.
    const res = await patchKb(h, key, kbId, [filePart(name, `plain text content of ${name}`)]);
    expect(res.status, res.text).toBe(200);
    return res.body.files.at(-1) as { content: string; title: string };
  };

  it('keeps only the last path segment of ../../etc/passwd', async () => {
    const f = await upload('../../etc/passwd');
    expect(f.content).toBe('passwd');
    expect(f.title).toBe('passwd');
  });

  it('keeps only the last segment of a Windows path', async () => {
    expect((await upload('..\\..\\windows\\win.ini')).content).toBe('win.ini');
  });

  it('drops the right-to-left override from \\u202Eexe.pdf', async () => {
    const f = await upload('\u202Eexe.pdf');
    expect(f.content).toBe('exe.pdf');
    expect(f.title).toBe('exe.pdf');
  });

  it('keeps a.pdf%00.exe and CON as plain names, never in a key', async () => {
    expect((await upload('a.pdf%00.exe')).content).toBe('a.pdf%00.exe');
    expect((await upload('CON')).content).toBe('CON');
    // By segment: a random id may hold the letters CON, never as a whole part of a key.
    expect((await h.allKeys()).filter((k) => k.includes('%00') || k.split(/[:{}]/).includes('CON'))).toEqual([]);
  });

  it('answers 400 to a raw NUL in a file name and keeps nothing', async () => {
    const before = (await h.allKeys()).sort();
    const res = await patchKb(h, key, kbId, [filePart('a.pdf\u0000.exe', 'plain text behind a NUL name')]);
    expectErrorBody(res, 400, '/v1/knowledge-bases', { message: 'any' });
    expect((await h.allKeys()).sort()).toEqual(before);
  });

  it('keeps a non-ASCII file name such as résumé.txt as sent', async () => {
    expect((await upload('résumé.txt')).content).toBe('résumé.txt');
  });

  it('cuts a 10,000-character file name to at most 255 characters', async () => {
    const f = await upload(`${'a'.repeat(10_000)}.txt`);
    expect([...f.content].length).toBeLessThanOrEqual(255);
    expect(f.content.length).toBeGreaterThan(0);
  });

  it('never uses the file name in a Redis key', async () => {
    await upload('../../evil-name-marker.txt');
    expect((await h.allKeys()).filter((k) => k.includes('evil-name-marker'))).toEqual([]);
  });
});

describe('text field limits', () => {
  it('returns 413 when the texts field is larger than 10 MiB, and keeps nothing', async () => {
    const key = await h.key('ws_fieldcap');
    const created = await createKb(h, key, 'field cap');
    const before = await h.allKeys();
    const items = Array.from({ length: 11 }, () => 'a'.repeat(1024 * 1024 - 16));
    const res = await patchKb(h, key, (created as { kbId: string }).kbId, [textsField(items)]);
    expect(res.status).toBe(413);
    expect(await h.allKeys()).toEqual(before);
  });
});
