import { describe, expect, it } from 'vitest';
import { extractText } from '../../worker/extractors/index.js';
import { warmUpPdfReading } from '../../worker/extractors/pdf/warm-up.js';
import { WARM_UP_PAGES, warmUpPdf } from '../../worker/extractors/pdf/warm-up-pdf.js';
import { getDocument } from '../../worker/extractors/pdf/pdfjs.js';

const limits = { maxTextChars: 1_000_000, maxPdfPages: 100 };

describe('the warm-up PDF', () => {
  it('is a valid PDF of the pages asked for, with text in several fonts and compressed drawings', async () => {
    const bytes = warmUpPdf({ pages: 3, lines: 10, figures: 20 });
    const doc = await getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, verbosity: 0 }).promise;
    try {
      expect(doc.numPages).toBe(3);
      const page = await doc.getPage(2);
      const content = await page.getTextContent();
      const fonts = new Set(content.items.map((item) => ('fontName' in item ? item.fontName : '')));
      expect(fonts.size).toBeGreaterThanOrEqual(3);
      expect(content.items.map((item) => ('str' in item ? item.str : '')).join('')).toContain('2 Drawing the');
      const ops = await page.getOperatorList();
      expect(ops.fnArray.length).toBeGreaterThan(20 * 4);
    } finally {
      await doc.destroy();
    }
    expect(Buffer.from(bytes).toString('latin1')).toContain('/FlateDecode');
  });

  it('extracts as a document would', async () => {
    const extraction = await extractText(warmUpPdf(), { filename: 'warm-up.pdf', ...limits });
    expect(extraction.pageCount).toBe(WARM_UP_PAGES);
    expect(extraction.text).toContain(`${WARM_UP_PAGES} Drawing the`);
  });
});

describe('warmUpPdfReading', () => {
  it('reads every page of the warm-up PDF when nothing stops it', async () => {
    await expect(warmUpPdfReading(new AbortController().signal, 60_000)).resolves.toBe(WARM_UP_PAGES);
  });

  it('reads nothing once stopped, and stops at the next page when stopped on the way', async () => {
    const stopped = new AbortController();
    stopped.abort();
    await expect(warmUpPdfReading(stopped.signal)).resolves.toBe(0);

    // Stopped once the extraction has started: the next page's progress ends it.
    const midway = new AbortController();
    const reading = warmUpPdfReading(midway.signal, 60_000);
    midway.abort();
    await expect(reading).resolves.toBe(0);
  });

  it('stops at its time budget', async () => {
    await expect(warmUpPdfReading(new AbortController().signal, 0)).resolves.toBe(0);
  });
});
