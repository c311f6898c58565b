import { OPS } from '../../worker/extractors/pdf/pdfjs.js';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/runtime/config.js';
import { detectType } from '../../shared/formats/detect-type.js';
import { parseAcceptedFormats } from '../../shared/formats/format-policy.js';
import { imageFrames } from '../../worker/extractors/image/image-frames.js';
import { needsPaintEvidence, ocrReason, paintEvidence } from '../../worker/extractors/pdf/ocr/needs-ocr.js';
import { fontSize, ocrTextItems } from '../../worker/extractors/pdf/ocr/ocr-lines.js';
import { OcrTally } from '../../worker/extractors/pdf/ocr/ocr-tally.js';
import { parseTsv, type OcrWord } from '../../worker/extractors/pdf/ocr/tesseract.js';

const LETTER = [0, 0, 612, 792];
const image = (a: number, d: number, e = 0, f = 0) => ({
  fnArray: [OPS.save, OPS.transform, OPS.paintImageXObject, OPS.restore],
  argsArray: [null, [a, 0, 0, d, e, f], ['img_p0_1', 2550, 3300], null],
});

describe('which PDF pages are read by OCR', () => {
  it('never OCRs a page with a good text layer, and does not even look at what it paints', () => {
    const text = { letters: 1200, garbled: false };
    expect(needsPaintEvidence(text)).toBe(false);
    expect(ocrReason(text)).toBeUndefined();
    expect(ocrReason(text, { imageShare: 1, pathWeight: 0 })).toBeUndefined();
  });

  it('OCRs a page without a text layer that is mostly image, as a scan is', () => {
    const text = { letters: 0, garbled: false };
    expect(needsPaintEvidence(text)).toBe(true);
    expect(ocrReason(text, paintEvidence(image(612, 792), LETTER))).toBe('no_text_layer');
  });

  it('OCRs a page whose text is drawn as vector outlines', () => {
    const path = { fnArray: [OPS.constructPath], argsArray: [[OPS.fill, [new Float32Array(5000)], null]] };
    const evidence = paintEvidence(path, LETTER);
    expect(evidence.pathWeight).toBe(5000);
    expect(ocrReason({ letters: 0, garbled: false }, evidence)).toBe('no_text_layer');
  });

  it('OCRs a textless page whose scan covers only part of it, as a scanner places a smaller sheet on A4', () => {
    // pdf.js's operator list of the corpus's pdfjs-issue13372-scanned-ccitt.pdf: a CCITT image mask on half of an A4 page.
    const ops = {
      fnArray: [OPS.save, OPS.transform, OPS.save, OPS.transform, OPS.paintImageMaskXObject, OPS.restore, OPS.restore],
      argsArray: [null, [0.24, 0, 0, 0.24, 0, 0], null, [1800, 0, 0, -2400, 375, 2850], [{ data: 'mask_p0_2', width: 646, height: 761, count: 1 }], null, null],
    };
    const evidence = paintEvidence(ops, [0, 0, 595, 842]);
    expect(evidence.imageShare).toBeCloseTo(0.4967, 3);
    expect(ocrReason({ letters: 0, garbled: false }, evidence)).toBe('no_text_layer');
    // With a few letters beside it, half a page of image may be a photograph with its caption.
    expect(ocrReason({ letters: 12, garbled: false }, evidence)).toBeUndefined();
  });

  it('OCRs a scan under a stray stamp of a few letters, but not a blank page, a small picture or a page of rules', () => {
    expect(ocrReason({ letters: 12, garbled: false }, paintEvidence(image(612, 792), LETTER))).toBe('sparse_text');
    expect(ocrReason({ letters: 0, garbled: false }, { imageShare: 0, pathWeight: 0 })).toBeUndefined();
    expect(ocrReason({ letters: 0, garbled: false }, paintEvidence(image(200, 150, 72, 500), LETTER))).toBeUndefined();
    expect(ocrReason({ letters: 0, garbled: false }, { imageShare: 0, pathWeight: 300 })).toBeUndefined();
  });

  it('OCRs a garbled text layer whatever it paints', () => {
    expect(ocrReason({ letters: 900, garbled: true })).toBe('garbled');
  });

  it('follows the transformation matrix through save and restore when it measures images', () => {
    const ops = {
      fnArray: [OPS.transform, OPS.save, OPS.transform, OPS.paintImageXObject, OPS.restore, OPS.paintImageXObject],
      argsArray: [[0.5, 0, 0, 0.5, 0, 0], null, [612, 0, 0, 792, 0, 0], ['a', 10, 10], null, ['b', 10, 10]],
    };
    // 612 x 792 scaled by a half is a quarter of the page; the second image paints the half-scaled unit square.
    expect(paintEvidence(ops, LETTER).imageShare).toBeCloseTo(0.25 + 0.25 / (612 * 792), 6);
  });
});

describe('Tesseract output to page lines', () => {
  const tsv = [
    'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext',
    '4\t1\t1\t1\t1\t0\t300\t300\t900\t75\t-1\t',
    '5\t1\t1\t1\t1\t1\t300\t300\t500\t75\t96.5\tAnnual',
    '5\t1\t1\t1\t1\t2\t820\t300\t380\t75\t91\tReport',
    '5\t1\t2\t1\t1\t1\t300\t500\t120\t42\t88\tThe',
    '5\t1\t2\t1\t1\t2\t440\t500\t300\t55\t62\tbudget',
    '5\t1\t2\t1\t1\t3\t760\t500\t50\t20\t-1\t ',
  ].join('\n');

  it('keeps the words of level 5 with their boxes, line and confidence', () => {
    const words = parseTsv(tsv);
    expect(words.map((w) => w.text)).toEqual(['Annual', 'Report', 'The', 'budget']);
    expect(words[0]).toMatchObject({ left: 300, top: 300, width: 500, height: 75, conf: 96.5, page: 1, line: '1.1.1' });
    expect(words[2]!.line).not.toBe(words[0]!.line);
  });

  it('makes one text item per line, in points with y upwards, sized so a heading reads larger than body text', () => {
    const items = ocrTextItems(parseTsv(tsv), { height: 3300, scale: 300 / 72 });
    expect(items.map((i) => i.str)).toEqual(['Annual Report', 'The budget']);
    const [heading, body] = items;
    expect(heading!.transform[4]).toBeCloseTo(72, 5);
    expect(heading!.transform[5]).toBeGreaterThan(body!.transform[5]!);
    expect(heading!.transform[0]).toBeGreaterThan(body!.transform[0]! * 1.3);
  });

  it('estimates the font size from letters with and without ascenders alike', () => {
    const word = (text: string, height: number): OcrWord => ({ text, height, left: 0, top: 0, width: 10, conf: 90, page: 1, line: 'x' });
    // At 40 px per em: x-height words are about 21 px high, words with ascenders 29 px, with both 37 px.
    const sizes = [fontSize([word('once', 21)]), fontSize([word('Lot', 29)]), fontSize([word('Hyphen', 37)])];
    for (const size of sizes) expect(size).toBeGreaterThan(36), expect(size).toBeLessThan(44);
  });
});

describe('what OCR of a document reports', () => {
  const settings = { binary: '/usr/bin/tesseract', languages: 'eng', maxPages: 2, pageTimeoutMs: 1000 };
  const words = (conf: number): OcrWord[] => [{ text: 'words', conf, left: 0, top: 0, width: 1, height: 1, page: 1, line: '1' }];

  it('names the pages read and their mean confidence, and warns when it is low', () => {
    const tally = new OcrTally(settings);
    tally.readAs(1, words(95));
    tally.readAs(2, words(35));
    expect(tally.warnings()).toEqual([
      { code: 'ocr', message: expect.stringMatching(/pages 1–2 was read by OCR.*mean confidence 65%/) },
      { code: 'low_ocr_confidence', message: expect.stringContaining('65%') },
    ]);
  });

  it('names the pages past OCR_MAX_PAGES in partial_text, with the pages read', () => {
    const tally = new OcrTally(settings);
    tally.readAs(1, words(90));
    tally.readAs(2, words(90));
    tally.notRead(3);
    tally.notRead(4);
    const partial = tally.warnings().find((w) => w.code === 'partial_text');
    expect(partial?.message).toMatch(/^OCR read pages 1–2; pages 3–4 also need OCR and were not read: .*OCR_MAX_PAGES/);
  });

  it('fails an empty document as no_text saying OCR found nothing, or as ocr_unavailable without an engine', () => {
    const empty = new OcrTally(settings);
    empty.readAs(1, []);
    expect(empty.emptyError()).toMatchObject({ code: 'no_text', message: expect.stringContaining('OCR found no text on page 1') });
    const none = new OcrTally({ ...settings, binary: undefined, unavailable: 'no tesseract binary was found' });
    none.notRead(1);
    expect(none.emptyError()).toMatchObject({ code: 'ocr_unavailable', message: expect.stringContaining('no tesseract binary was found') });
  });
});

describe('images as a format', () => {
  const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.from([0, 0, 0x0a, 0, 0, 0, 0x07, 0xd0]), Buffer.alloc(40)]);

  it('reads the size of a PNG from its header', () => {
    expect(imageFrames(new Uint8Array(png))?.map(({ width, height }) => ({ width, height }))).toEqual([{ width: 2560, height: 2000 }]);
  });

  it('is refused by default with the words used before images were a format, and accepted under ACCEPTED_FORMATS=all', async () => {
    expect(await detectType(new Uint8Array(png), {}, true)).toEqual({ ok: false, message: 'The file is image/png, which is not a supported document type.' });
    const all = parseAcceptedFormats('all');
    expect('formats' in all && (await detectType(new Uint8Array(png), {}, true, all.formats))).toEqual({ ok: true, format: 'image', mimeType: 'image/png' });
    expect(parseAcceptedFormats('pdf,png,tiff')).toEqual({ formats: ['pdf', 'image'] });
  });
});

describe('OCR settings', () => {
  it('defaults to OCR on, English, 100 pages, 30 s a page', () => {
    expect(loadConfig({})).toMatchObject({ OCR_ENABLED: true, OCR_LANGUAGES: 'eng', OCR_MAX_PAGES: 100, OCR_PAGE_TIMEOUT_MS: 30_000 });
  });

  it('takes languages joined by + and refuses anything else at start-up', () => {
    expect(loadConfig({ OCR_LANGUAGES: 'eng+deu+chi_sim' }).OCR_LANGUAGES).toBe('eng+deu+chi_sim');
    expect(() => loadConfig({ OCR_LANGUAGES: 'eng, deu' })).toThrow(/OCR_LANGUAGES: must be Tesseract language codes joined by \+/);
    expect(() => loadConfig({ OCR_LANGUAGES: '../../etc' })).toThrow(/OCR_LANGUAGES/);
    expect(() => loadConfig({ OCR_MAX_PAGES: '0' })).toThrow(/OCR_MAX_PAGES: must be at least 1/);
  });
});
