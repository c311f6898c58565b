import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractSourceJobId } from '../../shared/queue/jobs.js';
import { buildCfb } from '../fixtures/binary.js';
import { buildDocx, docxDeclaring } from '../fixtures/docx.js';
import { brokenPdf, buildPdf } from '../fixtures/pdf.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { createKbWith, finishedJob, startTestWorker, waitForDocument } from '../helpers/worker-harness.js';
import type { RunningWorker } from '../../worker/main.js';

let h: Harness;
let key: string;
let worker: RunningWorker;

beforeAll(async () => {
  h = await createHarness({ JOB_ATTEMPTS: '2', JOB_BACKOFF_MS: '50' });
  key = await h.key('ws_formats');
  worker = await startTestWorker(h);
});
afterAll(async () => {
  await worker.close();
  await h.close();
});

async function uploadOne(bytes: Uint8Array, filename: string) {
  const { kbId, docs } = await createKbWith(h, key, (f) => f.append('knowledge_base_files', new Blob([bytes]), filename));
  return { ...(await waitForDocument(h, key, kbId, docs[0]!)), kbId };
}

describe('binary formats end to end', () => {
  it('extracts every page of a PDF with its page count and metadata title', async () => {
    const pdf = buildPdf({ title: 'Price list 2026', pages: ['Tune-up costs 49 euros.', 'Chain replacement costs 25 euros.', 'Wheel truing costs 15 euros.'] });
    const doc = await uploadOne(pdf, 'prices.pdf');
    expect(doc).toMatchObject({ status: 'ready', mimeType: 'application/pdf', pageCount: 3, title: 'Price list 2026' });
    expect(doc.text).toContain('Tune-up costs 49 euros.');
    expect(doc.text).toContain('Wheel truing costs 15 euros.');
    expect(doc.text!.indexOf('Tune-up')).toBeLessThan(doc.text!.indexOf('Wheel'));
    expect(doc.text).not.toMatch(/-- \d+ of \d+ --/);
  });

  it('extracts headings, list items and table cells of a DOCX', async () => {
    const docx = buildDocx(
      [
        { heading: 'Opening hours' },
        { para: 'We are open on weekdays.' },
        { list: ['Monday to Friday', 'Saturday mornings'] },
        { table: [['Service', 'Price'], ['Cleaning', '60']] },
      ],
      { title: 'Clinic handbook' },
    );
    const doc = await uploadOne(docx, 'handbook.docx');
    expect(doc).toMatchObject({ status: 'ready', title: 'Clinic handbook' });
    for (const words of ['Opening hours', 'We are open on weekdays.', 'Monday to Friday', 'Saturday mornings', 'Cleaning', '60']) {
      expect(doc.text).toContain(words);
    }
  });
});

describe('damaged and hostile files fail with a code a user can act on', () => {
  const cases: [string, () => Uint8Array, string, string][] = [
    ['a password-protected PDF', () => buildPdf({ pages: ['secret'], encrypt: { userPassword: 'pw', ownerPassword: 'owner' } }), 'locked.pdf', 'encrypted'],
    ['a password-protected Word file (CFB with EncryptedPackage)', () => buildCfb(['EncryptionInfo', 'EncryptedPackage']), 'locked.docx', 'encrypted'],
    ['a damaged PDF', brokenPdf, 'broken.pdf', 'corrupt'],
    ['a PDF with no text layer', () => buildPdf({ pages: [''] }), 'scan.pdf', 'no_text'],
    ['a DOCX whose parts claim gigabytes (zip bomb)', () => docxDeclaring(4_000_000_000), 'bomb.docx', 'too_complex'],
  ];
  for (const [name, build, filename, code] of cases) {
    it(`ends ${name} failed/${code} after one attempt (JOB_ATTEMPTS 2): a retry cannot fix it`, async () => {
      const doc = await uploadOne(build(), filename);
      expect(doc.status).toBe('failed');
      expect(doc.error?.code).toBe(code);
      expect(doc.error?.message).toMatch(/\w{3,}/);
      expect(doc.error?.message).not.toMatch(/\n\s+at /);
      const jobId = extractSourceJobId({ workspaceId: 'ws_formats', kbId: doc.kbId, documentId: doc.documentId, run: 1 });
      expect(await finishedJob(h, jobId)).toEqual({ state: 'failed', attemptsMade: 1 });
    });
  }

  it('says a PDF without a text layer looks scanned', async () => {
    const doc = await uploadOne(buildPdf({ pages: ['', ''] }), 'scan2.pdf');
    expect(doc.error?.message.toLowerCase()).toMatch(/scan/);
  });

  it('opens a PDF protected only by an owner password', async () => {
    const doc = await uploadOne(buildPdf({ pages: ['Readable by anyone'], encrypt: { userPassword: '', ownerPassword: 'owner' } }), 'owner.pdf');
    expect(doc).toMatchObject({ status: 'ready' });
    expect(doc.text).toContain('Readable by anyone');
  });
});
