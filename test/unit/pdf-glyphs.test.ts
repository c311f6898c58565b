import { describe, expect, it } from 'vitest';
import { extractText, type ExtractOptions } from '../../worker/extractors/index.js';
import { composeAccents, joinTexLogos } from '../../worker/extractors/pdf/glyphs.js';
import { joinRuns, type Run } from '../../worker/extractors/pdf/runs.js';
import { buildPdf } from '../fixtures/pdf.js';

const opts: ExtractOptions = { maxTextChars: 100_000, maxPdfPages: 5 };

describe('PDF glyph-level text', () => {
  it('puts a spacing accent drawn before its letter back on the letter', () => {
    expect(composeAccents('Institut de Math\u00b4ematiques')).toBe('Institut de Mathématiques');
    expect(composeAccents('the M\u00a8 obius function')).toBe('the Möbius function');
    expect(composeAccents('Wirtschaftsuniversit\u00a8 at')).toBe('Wirtschaftsuniversität');
    expect(composeAccents('\u00b4\u0131tem')).toBe('ítem');
  });

  it('leaves an accent that has no letter of its own', () => {
    expect(composeAccents('G \u02c6 to Z')).toBe('G \u02c6 to Z');
    expect(composeAccents('1.a \u00af Exponenciaci\u00f3n')).toBe('1.a \u00af Exponenciaci\u00f3n');
  });

  it('joins the TeX logos split by their kerning and leaves other capitals alone', () => {
    expect(joinTexLogos('written in L ATEX and T EX, not LATEX')).toBe('written in LaTeX and TeX, not LATEX');
    expect(joinTexLogos('LATEX TEXT T EXAMPLE')).toBe('LATEX TEXT T EXAMPLE');
  });

  it('composes an accent glyph drawn as its own run over the next letter', async () => {
    // Helvetica "Math" is 28.67 pt wide at 12 pt; the acute, wider than the "e", starts just left of it, as TeX draws it.
    const pdf = buildPdf({ pages: [[{ text: 'Math', x: 72, y: 700 }, { text: '\xb4', x: 100.17, y: 700 }, { text: 'ematiques et logique', x: 100.67, y: 700 }]] });
    expect((await extractText(pdf, opts)).text).toBe('Mathématiques et logique');
  });

  it('reads a LaTeX logo drawn in pieces as one word', async () => {
    const pdf = buildPdf({ pages: [[{ text: 'Typeset with L', x: 72, y: 700 }, { text: 'A', x: 152, y: 703, size: 8 }, { text: 'TEX today', x: 160, y: 700 }]] });
    expect((await extractText(pdf, opts)).text).toBe('Typeset with LaTeX today');
  });

  it('puts an accent glyph drawn after its letter, over it, on that letter', async () => {
    // Helvetica "G" is 9.34 pt wide at 12 pt; the circumflex (4 pt) is drawn over its middle, raised, after it.
    const pdf = buildPdf({ pages: [[{ text: 'induce', x: 72, y: 700 }, { text: 'G', x: 112, y: 700 }, { text: '\x88', x: 114.7, y: 703 }, { text: 'to Z', x: 125, y: 700 }]] });
    expect((await extractText(pdf, opts)).text).toBe('induce \u011c to Z');
  });

  it('reads a superscript a or o with a bar under it as the ordinal indicator', async () => {
    const pdf = buildPdf({ pages: [[{ text: 'Prioridad', x: 72, y: 700 }, { text: '1.', x: 140, y: 700 }, { text: 'a', x: 146.7, y: 704, size: 8 },
      { text: '\xaf', x: 146.7, y: 697, size: 8 }, { text: 'y 2.', x: 160, y: 700 }, { text: 'o', x: 179.4, y: 704, size: 8 }, { text: '\xaf', x: 179.4, y: 697, size: 8 }]] });
    expect((await extractText(pdf, opts)).text).toBe('Prioridad 1.\u00aa y 2.\u00ba');
  });

  it('leaves accents and carets of code that stand beside a letter, not over it', async () => {
    const pdf = buildPdf({ pages: [[{ text: 'x', x: 72, y: 700, font: 'mono' }, { text: '^', x: 79.2, y: 700, font: 'mono' }, { text: 'y', x: 86.4, y: 700, font: 'mono' },
      { text: 'a', x: 100.8, y: 700, font: 'mono' }, { text: '~', x: 108, y: 700, font: 'mono' }, { text: 'b', x: 115.2, y: 700, font: 'mono' }]] });
    expect((await extractText(pdf, opts)).text).toBe('x^y a~b');
  });

  it('puts a combining mark drawn as a glyph of its own on the letter under it', () => {
    const run = (str: string, x0: number, x1: number): Run => ({ str, x0, x1, y: 700, size: 10, rtl: false });
    // The mark comes first in the content stream and has no width of its own: it is placed over the "e".
    expect(joinRuns([run('caf', 72, 87), run('\u0301', 88, 91), run('e', 87, 92.5), run('noir', 95, 113)])).toBe('caf\u00e9 noir');
    expect(joinRuns([run('caf', 72, 87), run('e', 87, 92.5), run('\u0301', 130, 133)])).toBe('cafe \u0301');
  });
});
