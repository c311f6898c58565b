import { describe, expect, it } from 'vitest';
import { extractText, type ExtractOptions } from '../../worker/extractors/index.js';
import { joinLettersByGaps } from '../../worker/extractors/pdf/runs.js';
import { getDocument } from '../../worker/extractors/pdf/pdfjs.js';
import { buildPdf } from '../fixtures/pdf.js';

const opts: ExtractOptions = { maxTextChars: 100_000, maxPdfPages: 5 };
const LINE = 'Please read the manual, section 2.1 of it in full';

async function read(letterSpacing: number, size = 10): Promise<string> {
  return (await extractText(buildPdf({ pages: [[{ text: LINE, x: 72, y: 700, size, letterSpacing }]] }), opts)).text;
}

describe('letter-spaced PDF text', () => {
  // Helvetica at 10 pt: a letter gap of 0.12 to 0.3 em, a word gap of that twice and the 0.28 em space.
  // Up to 0.16 em, pdf.js reads the whole line as one item with a space between every two letters.
  it.each([1.2, 1.5, 2, 2.4, 3])('joins the letters of each word and keeps the words apart (Tc %s pt at 10 pt)', async (tc) => {
    expect(await read(tc)).toBe(LINE);
  });

  it('reads a line without letter spacing as before', async () => {
    expect(await read(0)).toBe(LINE);
    expect(await read(0.5, 12)).toBe(LINE);
  });

  it('gets from pdf.js the gap of each space it puts between glyphs, in em', async () => {
    const doc = await getDocument({ data: buildPdf({ pages: [[{ text: 'ab cd', x: 72, y: 700, size: 10, letterSpacing: 1.5 }]] }) }).promise;
    try {
      const items = (await (await doc.getPage(1)).getTextContent()).items as Array<{ str: string; gaps?: number[] }>;
      expect(items[0]!.str).toBe('a b c d');
      // 1.5 pt of 10 pt after each letter; after "b", its spacing, the space (0.278 em) and the space's spacing.
      expect(items[0]!.gaps!.map((g) => Math.round(g * 1000) / 1000)).toEqual([0.15, 0.578, 0.15]);
    } finally {
      await doc.destroy();
    }
  });
});

describe('joinLettersByGaps', () => {
  it('takes out the narrow gaps of letter-spaced words and keeps the wide ones', () => {
    expect(joinLettersByGaps('r e a d t h e m a p', [0.13, 0.13, 0.13, 0.53, 0.13, 0.13, 0.13, 0.53, 0.13])).toBe('read them ap');
  });

  it('leaves items that are not letter-spaced words alone', () => {
    // A table of contents' title and dot leaders: the dots are single glyphs, the words are not.
    expect(joinLettersByGaps('Registering as a Debian member . . . .', [0.25, 0.25, 0.25, 0.25, 0.37, 0.5, 0.5, 0.5])).toBeUndefined();
    // A formula's letters, a little apart: too few to tell.
    expect(joinLettersByGaps('f s ,', [0.15, 0.3])).toBeUndefined();
    // A row of a character table whose gaps are mostly wide: single glyphs, no words.
    expect(joinLettersByGaps('S T U V W X Y Z', [0.45, 0.45, 0.45, 0.2, 0.2, 0.45, 0.45])).toBeUndefined();
    // Even gaps as wide as a space: single-letter words.
    expect(joinLettersByGaps('x y z w', [0.28, 0.28, 0.28])).toBeUndefined();
    // Gaps that do not stand one to a space.
    expect(joinLettersByGaps('r e a d', [0.13, 0.13])).toBeUndefined();
  });

  it('keeps a space drawn as a character', () => {
    expect(joinLettersByGaps('r e a d t h e m', [0.13, 0.13, 0.13, -1, 0.13, 0.13, 0.13])).toBe('read them');
  });
});
