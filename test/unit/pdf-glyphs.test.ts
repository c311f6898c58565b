import { describe, expect, it } from 'vitest';
import { extractText, type ExtractOptions } from '../../worker/extractors/index.js';
import { composeAccents, joinTexLogos } from '../../worker/extractors/pdf/glyphs.js';
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
});
