import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SourceError } from '../../shared/source-errors.js';
import { extractText, type ExtractOptions } from '../../worker/extractors/index.js';
import { findOcrEngine } from '../../worker/extractors/pdf/ocr/engine.js';
import type { OcrSettings } from '../../worker/extractors/pdf/ocr/settings.js';
import { buildPdf, type PdfRun } from '../fixtures/pdf.js';
import { greyTiff, imagePdf, pngPages, renderPdfPages, scanPdfPages } from '../fixtures/scan.js';

const TESSERACT = '/usr/bin/tesseract';
const present = existsSync(TESSERACT);
if (!present) console.warn('ocr-extract: skipped, /usr/bin/tesseract is missing (apt-get install tesseract-ocr tesseract-ocr-eng)');

const OCR: OcrSettings = { binary: TESSERACT, languages: 'eng', maxPages: 10, pageTimeoutMs: 60_000 };
/** Extraction options with `ocr` (null: OCR off, as with OCR_ENABLED=false). */
const opts = (ocr: OcrSettings | null = OCR, more: Partial<ExtractOptions> = {}): ExtractOptions => ({ maxTextChars: 100_000, maxPdfPages: 100, ...(ocr ? { ocr } : {}), ...more });

const PAGE_ONE: PdfRun[] = [
  { text: 'Harbour Survey', x: 72, y: 720, size: 22, font: 'bold' },
  { text: 'The committee met on Monday to review the harbour budget.', x: 72, y: 680 },
  { text: 'Repairs to the northern pier will begin in the spring.', x: 72, y: 664 },
  { text: 'The harbour master will report on the work every month.', x: 72, y: 648 },
];
const PAGE_TWO: PdfRun[] = [{ text: 'Fishing licences are renewed every second year.', x: 72, y: 720 }];
const scansOf = async (pages: PdfRun[][]) => scanPdfPages(buildPdf({ pages }), 200, { quality: 85 });

async function failure(p: Promise<unknown>): Promise<SourceError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(SourceError);
  return err as SourceError;
}

describe.skipIf(!present)('OCR of scanned PDFs', { timeout: 180_000 }, () => {
  it('reads an image-only PDF page by page into the same rebuild as a text layer, with the ocr warning and progress', async () => {
    const progress: number[] = [];
    const r = await extractText(imagePdf(await scansOf([PAGE_ONE, PAGE_TWO])), opts(OCR, { onProgress: (p) => progress.push(p.pagesDone ?? 0) }));
    expect(r.markdown).toMatch(/^# Harbour Survey\n\nThe committee met on Monday/);
    expect(r.text).toContain('northern pier');
    expect(r.text).toContain('Fishing licences are renewed');
    expect(r.pageStarts).toHaveLength(2);
    expect(r.markdown.slice(r.pageStarts![1]!)).toMatch(/^Fishing/);
    expect(r.warnings).toEqual([{ code: 'ocr', message: expect.stringMatching(/^The text of pages 1–2 was read by OCR \(Tesseract, eng; mean confidence (9\d)%\)\.$/) }]);
    expect(progress).toContain(1);
    expect(progress.at(-1)).toBe(2);
  });

  it('reads only the scanned page of a mixed PDF, naming it in the warning', async () => {
    const [scan] = await scansOf([PAGE_TWO]);
    const r = await extractText(imagePdf([{ text: 'This page has a text layer of its own, long enough to count.' }, scan!]), opts());
    expect(r.text).toMatch(/^This page has a text layer of its own, long enough to count\.\n\nFishing licences/);
    expect(r.warnings?.map((w) => w.code)).toEqual(['ocr']);
    expect(r.warnings?.[0]?.message).toMatch(/^The text of page 2 was read/);
  });

  it.skipIf(!existsSync('/usr/bin/pdftoppm') || !existsSync('/usr/bin/pdfimages'))('renders the page with pdftoppm and judges it by pdfimages when the worker has them, to the same text', async () => {
    const [scan] = await scansOf([PAGE_TWO]);
    const poppler = { renderer: '/usr/bin/pdftoppm', imageLister: '/usr/bin/pdfimages' };
    const r = await extractText(imagePdf([{ text: 'This page has a text layer of its own, long enough to count.' }, scan!]), opts({ ...OCR, ...poppler }));
    expect(r.text).toMatch(/\n\nFishing licences are renewed every second year\.$/);
    expect(r.warnings?.[0]?.message).toMatch(/^The text of page 2 was read/);
  });

  it('stops at OCR_MAX_PAGES and names the pages read and the pages left in partial_text', async () => {
    const r = await extractText(imagePdf(await scansOf([PAGE_ONE, PAGE_TWO])), opts({ ...OCR, maxPages: 1 }));
    expect(r.text).toContain('Harbour Survey');
    expect(r.text).not.toContain('Fishing');
    expect(r.warnings?.find((w) => w.code === 'partial_text')?.message).toMatch(/^OCR read page 1; page 2 also needs OCR and was not read/);
  });

  it('leaves a blank scan failed/no_text, saying OCR found nothing', async () => {
    const blank = await scansOf([[{ text: ' ', x: 72, y: 720 }]]);
    const e = await failure(extractText(imagePdf(blank), opts()));
    expect(e.code).toBe('no_text');
    expect(e.message).toMatch(/OCR found no text on page 1/);
  });

  it('fails a scan as ocr_unavailable when this worker has no engine, and as before when OCR is off', async () => {
    const pdf = imagePdf(await scansOf([PAGE_TWO]));
    const e = await failure(extractText(pdf, opts({ ...OCR, binary: undefined, unavailable: 'no tesseract binary was found' })));
    expect(e).toMatchObject({ code: 'ocr_unavailable', message: expect.stringContaining('no tesseract binary was found') });
    expect(await failure(extractText(pdf, opts(null)))).toMatchObject({ code: 'no_text', message: expect.stringMatching(/scanned/) });
  });

  it('never starts OCR for a born-digital PDF', async () => {
    // A binary that does not exist would fail any page sent to it.
    const r = await extractText(buildPdf({ pages: [PAGE_ONE, PAGE_TWO] }), opts({ ...OCR, binary: '/nonexistent/tesseract' }));
    expect(r.text).toContain('Fishing licences are renewed every second year.');
    expect(r.warnings).toBeUndefined();
  });
});

describe.skipIf(!present)('OCR of images', { timeout: 180_000 }, () => {
  it('reads a PNG when images are accepted', async () => {
    const [png] = await pngPages(buildPdf({ pages: [PAGE_ONE] }));
    const r = await extractText(png!, opts(OCR, { acceptedFormats: ['pdf', 'image'] }));
    expect(r).toMatchObject({ format: 'image', mimeType: 'image/png' });
    expect(r.markdown).toMatch(/^# Harbour Survey/);
    expect(r.warnings?.[0]?.code).toBe('ocr');
  });

  it('reads every page of a multi-page TIFF, each a page of the result', async () => {
    const tiff = greyTiff(await renderPdfPages(buildPdf({ pages: [PAGE_ONE, PAGE_TWO] }), 150));
    const r = await extractText(tiff, opts(OCR, { acceptedFormats: ['image'] }));
    expect(r).toMatchObject({ format: 'image', mimeType: 'image/tiff', pageCount: 2 });
    expect(r.pageStarts).toHaveLength(2);
    expect(r.markdown.slice(r.pageStarts![1]!)).toMatch(/^Fishing licences/);
  });

  it('refuses an image by default and fails it as ocr_unavailable without OCR', async () => {
    const [png] = await pngPages(buildPdf({ pages: [PAGE_TWO] }), 72);
    expect(await failure(extractText(png!, opts()))).toMatchObject({ code: 'unsupported_media_type' });
    expect(await failure(extractText(png!, opts(null, { acceptedFormats: ['image'] })))).toMatchObject({ code: 'ocr_unavailable' });
  });
});

describe.skipIf(!present)('finding the OCR engine at start-up', { timeout: 60_000 }, () => {
  it('finds tesseract 4 or later with its languages', async () => {
    expect(await findOcrEngine('eng')).toEqual({ binary: TESSERACT, version: expect.stringMatching(/^tesseract [45]\./) });
  });

  it('says which package to install for a missing language or a missing binary', async () => {
    expect(await findOcrEngine('eng+zzz')).toEqual({ unavailable: expect.stringContaining('tesseract-ocr-zzz') });
    expect(await findOcrEngine('eng', ['/nonexistent/tesseract'])).toEqual({ unavailable: expect.stringContaining('tesseract-ocr') });
  });
});
