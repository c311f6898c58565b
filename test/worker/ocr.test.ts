import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKb, expectErrorBody, patchKb } from '../api/support.js';
import { buildPdf, type PdfRun } from '../fixtures/pdf.js';
import { imagePdf, pngPages, scanPdfPages } from '../fixtures/scan.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { filePart } from '../helpers/multipart-body.js';
import { createKbWith, startTestWorker, waitForDocument, type DocumentBody } from '../helpers/worker-harness.js';
import type { RunningWorker } from '../../worker/main.js';

const present = existsSync('/usr/bin/tesseract');
if (!present) console.warn('worker/ocr: the OCR cases are skipped, /usr/bin/tesseract is missing (apt-get install tesseract-ocr tesseract-ocr-eng)');

// OCR of a page takes seconds on a busy machine: the extraction limit and the wait are generous.
const ENV = { WORKER_CONCURRENCY: '1', EXTRACT_TIMEOUT_MS: '240000', JOB_ATTEMPTS: '1' };
const WAIT_MS = 200_000;
const PAGE: PdfRun[] = [
  { text: 'Station Timetable', x: 72, y: 720, size: 22, font: 'bold' },
  { text: 'The first train leaves the central station at six in the morning.', x: 72, y: 680 },
  { text: 'On Sundays the service starts two hours later than on weekdays.', x: 72, y: 664 },
  { text: 'Tickets bought on board cost more than tickets bought online.', x: 72, y: 648 },
];

type Source = DocumentBody & { warnings?: { code: string; message: string }[]; markdown?: string };

async function uploadOne(h: Harness, key: string, bytes: Uint8Array, filename: string): Promise<Source> {
  const { kbId, docs } = await createKbWith(h, key, (f) => f.append('knowledge_base_files', new Blob([bytes]), filename));
  const doc = await waitForDocument(h, key, kbId, docs[0]!, WAIT_MS);
  const res = await h.app.request(`/v1/knowledge-bases/${kbId}/documents/${docs[0]}?format=markdown`, { headers: { 'X-API-Key': key } });
  return { ...doc, ...((await res.json()) as Source) };
}

describe.skipIf(!present)('a worker with OCR, images accepted', { timeout: 300_000 }, () => {
  let h: Harness;
  let key: string;
  let worker: RunningWorker;
  beforeAll(async () => {
    h = await createHarness({ ...ENV, ACCEPTED_FORMATS: 'all' });
    key = await h.key('ws_ocr');
    worker = await startTestWorker(h);
  });
  afterAll(async () => {
    await worker?.close();
    await h?.close();
  });

  it('ends a scanned PDF ready, its text read by OCR into headings and paragraphs, with the ocr warning', async () => {
    const scan = imagePdf(await scanPdfPages(buildPdf({ pages: [PAGE] }), 200, { rotateDeg: 0.4, noise: 6, quality: 70 }));
    const doc = await uploadOne(h, key, scan, 'scan.pdf');
    expect(doc, JSON.stringify(doc.error)).toMatchObject({ status: 'ready', pageCount: 1 });
    expect(doc.markdown).toMatch(/^# Station Timetable\n\nThe first train leaves the central station/);
    expect(doc.warnings).toEqual([{ code: 'ocr', message: expect.stringMatching(/^The text of page 1 was read by OCR/) }]);
  });

  it('reads the text page of a mixed PDF as it is and OCRs the scanned one', async () => {
    const [scan] = await scanPdfPages(buildPdf({ pages: [PAGE] }), 200);
    const doc = await uploadOne(h, key, imagePdf([{ text: 'Contents of this timetable booklet, page one.' }, scan!]), 'mixed.pdf');
    expect(doc).toMatchObject({ status: 'ready', pageCount: 2 });
    expect(doc.text).toMatch(/^Contents of this timetable booklet, page one\.\n\nStation Timetable/);
    expect(doc.warnings?.map((w) => w.message)).toEqual([expect.stringMatching(/^The text of page 2 was read by OCR/)]);
  });

  it('accepts a PNG under ACCEPTED_FORMATS=all and reads it', async () => {
    const [png] = await pngPages(buildPdf({ pages: [PAGE] }), 200);
    const doc = await uploadOne(h, key, png!, 'timetable.png');
    expect(doc).toMatchObject({ status: 'ready', mimeType: 'image/png' });
    expect(doc.text).toContain('On Sundays the service starts two hours later');
  });
});

describe.skipIf(!present)('a worker without tesseract', { timeout: 300_000 }, () => {
  let h: Harness;
  let key: string;
  let worker: RunningWorker;
  beforeAll(async () => {
    h = await createHarness(ENV);
    key = await h.key('ws_no_ocr');
    worker = await startTestWorker(h, { ocrCandidates: ['/nonexistent/tesseract'] });
  });
  afterAll(async () => {
    await worker?.close();
    await h?.close();
  });

  it('fails a scanned PDF as ocr_unavailable, saying what to install', async () => {
    const scan = imagePdf(await scanPdfPages(buildPdf({ pages: [PAGE] }), 100));
    const doc = await uploadOne(h, key, scan, 'scan.pdf');
    expect(doc.status).toBe('failed');
    expect(doc.error).toEqual({ code: 'ocr_unavailable', message: expect.stringContaining('tesseract-ocr') });
  });
});

describe('images at the default format policy', () => {
  let h: Harness;
  let key: string;
  let kbId: string;
  beforeAll(async () => {
    h = await createHarness();
    key = await h.key('ws_ocr_default');
    kbId = (await createKb(h, key, 'Default policy')).kbId;
  });
  afterAll(async () => h?.close());

  it('refuses a PNG with 415 and the contract message, staging nothing', async () => {
    const [png] = await pngPages(buildPdf({ pages: [PAGE] }), 50);
    const before = (await h.allKeys()).sort();
    const res = await patchKb(h, key, kbId, [filePart('timetable.png', Buffer.from(png!), { type: 'image/png' })]);
    expectErrorBody(res, 415, '/v1/knowledge-bases');
    expect(res.body.message).toBe('Uploaded file type is not supported. Allowed: PDF, TXT, HTML, Markdown, DOCX.');
    expect((await h.allKeys()).sort()).toEqual(before);
  });
});
