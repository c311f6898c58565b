import { existsSync } from 'node:fs';
import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it, vi } from 'vitest';
import { listImageAreas, parseImageList } from '../../worker/extractors/pdf/ocr/image-list.js';
import { PdfOcr } from '../../worker/extractors/pdf/ocr/pdf-ocr.js';
import type { OcrSettings } from '../../worker/extractors/pdf/ocr/settings.js';
import { imagePdf } from '../fixtures/scan.js';

const PDFIMAGES = '/usr/bin/pdfimages';
const LETTER_AREA = 612 * 792;
// pdfimages -list reads the image dictionaries only: these bytes are never decoded.
const scan = (width: number, height: number) => ({ bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xd9]), width, height, kind: 'jpeg' as const });

const LISTING = `page   num  type   width height color comp bpc  enc interp  object ID x-ppi y-ppi size ratio
--------------------------------------------------------------------------------------------
   1     0 image    2550  3300  rgb     3   8  jpeg   no         4  0   300   300  940K 3.8%
   1     1 smask    2550  3300  gray    1   8  image  no         5  0   300   300  12K 0.1%
   3     2 stencil  1240  1754  -       1   1  ccitt  no         9  0   150   150  30K 1.1%
   3     3 image     100   100  gray    1   8  image  no        10  0   600   600  2K  20%
   4     4 image     100   100  gray    1   8  image  no        11  0     0     0  2K  20%
   5     5 image    9000  9000  rgb     3   8  image  no        36  0   300   300  440K 0.2%
`;

describe('the images of a page as pdfimages -list gives them', () => {
  it('sums the area the images and image masks of each page cover, leaving soft masks out', () => {
    const areas = parseImageList(LISTING);
    expect(areas.get(1)).toBeCloseTo(LETTER_AREA, 0);
    expect(areas.get(3)).toBeCloseTo((1240 / 150) * 72 * (1754 / 150) * 72 + 12 * 12, 3);
    expect(areas.get(2)).toBeUndefined();
    expect(areas.get(4)).toBeNaN();
  });

  it('leaves out an image over 16 Mpx, as pdf.js leaves it out of the operator list', () => {
    expect(parseImageList(LISTING).get(5)).toBeUndefined();
  });

  it.skipIf(!existsSync(PDFIMAGES))('lists a scan filling page 1 and nothing on a text page 2', async () => {
    const areas = await listImageAreas(PDFIMAGES, imagePdf([scan(2550, 3300), { text: 'A line of text.' }]), 10_000);
    expect(areas?.get(1)).toBeCloseTo(LETTER_AREA, -2);
    expect(areas?.has(2)).toBe(false);
  });

  it('gives nothing when the lister cannot be run', async () => {
    expect(await listImageAreas('/nonexistent/pdfimages', imagePdf([scan(10, 10)]), 10_000)).toBeUndefined();
  });
});

describe('judging a page by its listed images', () => {
  // No binary: a page found to need OCR is counted as not read, which tells what was decided.
  const settings = (imageLister: string): OcrSettings => ({ imageLister, languages: 'eng', maxPages: 10, pageTimeoutMs: 10_000 });
  const page = (ops: { fnArray: number[]; argsArray: unknown[] } = { fnArray: [], argsArray: [] }) =>
    ({ view: [0, 0, 612, 792], getOperatorList: vi.fn(async () => ops) }) as unknown as PDFPageProxy & { getOperatorList: ReturnType<typeof vi.fn> };

  it.skipIf(!existsSync(PDFIMAGES))('takes a textless page covered by a scan for OCR without building its operator list', async () => {
    const ocr = new PdfOcr(settings(PDFIMAGES), imagePdf([scan(2550, 3300)]));
    const p = page();
    await ocr.readPage(p, 1, []);
    expect(ocr.tally.covers(1)).toBe(true);
    expect(p.getOperatorList).not.toHaveBeenCalled();
  });

  it.skipIf(!existsSync(PDFIMAGES))('builds the operator list of a page whose images cover too little, for the paths it draws', async () => {
    const ocr = new PdfOcr(settings(PDFIMAGES), imagePdf([{ text: 'Only text here.' }]));
    const p = page();
    await ocr.readPage(p, 1, []);
    expect(p.getOperatorList).toHaveBeenCalledOnce();
    expect(ocr.tally.covers(1)).toBe(false);
  });

  it('falls back on the operator list when the lister fails', async () => {
    const ocr = new PdfOcr(settings('/nonexistent/pdfimages'), imagePdf([scan(2550, 3300)]));
    const p = page();
    await ocr.readPage(p, 1, []);
    expect(p.getOperatorList).toHaveBeenCalledOnce();
  });
});
