import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { xlsxLike } from '../fixtures/docx.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { filePart } from '../helpers/multipart-body.js';
import { createKb, expectErrorBody, patchKb } from './support.js';

const CSV = 'name,age,city\nAda,36,London\nAlan,41,Wilmslow\n';
const XLSX_MIME = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

describe('format policy at the default', () => {
  let h: Harness;
  let key: string;
  let kbId: string;
  beforeAll(async () => {
    h = await createHarness();
    key = await h.key('ws-policy-default');
    kbId = (await createKb(h, key, 'Default policy')).kbId;
  });
  afterAll(async () => h.close());

  it('returns 415 with the contract message for an XLSX, and stages nothing', async () => {
    const before = (await h.allKeys()).sort();
    const res = await patchKb(h, key, kbId, [filePart('sheet.xlsx', Buffer.from(xlsxLike()), { type: XLSX_MIME })]);
    expectErrorBody(res, 415, '/v1/knowledge-bases');
    expect(res.body.message).toBe('Uploaded file type is not supported. Allowed: PDF, TXT, HTML, Markdown, DOCX.');
    expect((await h.allKeys()).sort()).toEqual(before);
  });

  it('accepts a .csv as plain text', async () => {
    const res = await patchKb(h, key, kbId, [filePart('people.csv', CSV, { type: 'text/csv' })]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.files.at(-1)).toMatchObject({ content: 'people.csv', mimeType: 'text/plain' });
  });
});

describe('format policy naming pdf, docx, xlsx and csv', () => {
  let h: Harness;
  let key: string;
  let kbId: string;
  beforeAll(async () => {
    h = await createHarness({ ACCEPTED_FORMATS: 'pdf,docx,xlsx,csv' });
    key = await h.key('ws-policy-list');
    kbId = (await createKb(h, key, 'Listed policy')).kbId;
  });
  afterAll(async () => h.close());

  it('accepts an XLSX and a CSV by content', async () => {
    const res = await patchKb(h, key, kbId, [
      filePart('sheet.bin', Buffer.from(xlsxLike())),
      filePart('people.csv', CSV, { type: 'text/csv' }),
    ]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.files.slice(-2).map((f: { mimeType: string }) => f.mimeType)).toEqual([XLSX_MIME, 'text/csv']);
  });

  it('refuses plain text with a 415 listing what the deployment accepts', async () => {
    const refused = await patchKb(h, key, kbId, [filePart('notes.txt', 'just some notes', { type: 'text/plain' })]);
    expectErrorBody(refused, 415, '/v1/knowledge-bases', { message: 'Uploaded file type is not supported. Allowed: PDF, DOCX, XLSX, CSV.' });
  });
});
