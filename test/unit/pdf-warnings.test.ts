import { describe, expect, it } from 'vitest';
import { SourceError } from '../../shared/source-errors.js';
import { extractText, type ExtractOptions } from '../../worker/extractors/index.js';
import { garbledPages, pageList } from '../../worker/extractors/pdf/quality.js';
import { buildPdf } from '../fixtures/pdf.js';

const opts: ExtractOptions = { maxTextChars: 100_000, maxPdfPages: 50 };
const PROSE = 'This page has an ordinary text layer with enough words\nto be read as text and not as a scan of a page.';
// What a font without a Unicode map gives: glyph codes read as punctuation and symbols.
const GARBAGE = '%&$ #@% &$#( )%& $#%& @#$% &%$# (%$& #)$@ %&#$\n$%& #$%@ &(%$ #%&$ @%$# &$%( #@&% $#%&';

describe('PDF warnings', () => {
  it('gives no warning for ordinary text pages', async () => {
    const r = await extractText(buildPdf({ pages: [PROSE, PROSE] }), opts);
    expect(r.warnings).toBeUndefined();
  });

  it('warns garbled_text naming the pages that are mostly symbols', async () => {
    const r = await extractText(buildPdf({ pages: [PROSE, GARBAGE, GARBAGE] }), opts);
    expect(r.warnings).toEqual([{ code: 'garbled_text', message: expect.stringContaining('pages 2–3') }]);
  });

  it('warns partial_text naming the image-only page among text pages', async () => {
    const r = await extractText(buildPdf({ pages: [PROSE, PROSE, '', PROSE], imagePages: [2] }), opts);
    expect(r.warnings).toEqual([{ code: 'partial_text', message: expect.stringContaining('Page 3 has no text layer') }]);
    expect(r.pageStarts).toHaveLength(4);
  });

  it('does not warn about a blank page without an image', async () => {
    const r = await extractText(buildPdf({ pages: [PROSE, '', PROSE] }), opts);
    expect(r.warnings).toBeUndefined();
  });

  it('still fails as no_text when every page is an image with a few stray characters', async () => {
    const err = await extractText(buildPdf({ pages: ['p. 1', 'p. 2'], imagePages: [0, 1] }), opts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect((err as SourceError).code).toBe('no_text');
  });

  it('judges pages by their share of unmapped glyphs, symbols and words mixing scripts', () => {
    expect(garbledPages(['An ordinary sentence, with punctuation (and digits 1, 2, 3).', '\ue010\ue011\ue012\ue013\ue014 \ue000\ue001\ue002 \ue003\ue004\ue005 \ue006\ue007 \ue008\ue009\ue00a\ue00b\ue00c\ue00d\ue00e\ue00f\ue010\ue011\ue012',
      'ٱĵǎƶơǎƹŏķٱ ƽǎƹƃơńاو ϣîg ϙķϣʆ ΰചʽဍ ٱĵǎƶơǎƹŏķ', 'PDFファイルを開くとテキストが表示されます。'])).toEqual([2, 3]);
  });

  it('lists pages as ranges', () => {
    expect(pageList([4])).toBe('page 4');
    expect(pageList([2, 3, 4, 9])).toBe('pages 2–4, 9');
  });
});
