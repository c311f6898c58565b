import { describe, expect, it } from 'vitest';
import { extractText, type ExtractOptions } from '../../worker/extractors/index.js';
import { buildPdf } from '../fixtures/pdf.js';

const opts: ExtractOptions = { maxTextChars: 100_000, maxPdfPages: 5 };

describe('words in angle brackets', () => {
  it('keeps a PDF manual\'s <index> placeholders in the text and escapes them in the Markdown', async () => {
    const r = await extractText(buildPdf({ pages: ['set style line <index> default', 'plot <file> using </col>'] }), opts);
    expect(r.markdown).toContain('set style line \\<index> default');
    expect(r.text).toContain('set style line <index> default');
    expect(r.text).toContain('plot <file> using </col>');
  });

  it('keeps a placeholder of a Markdown file as text but drops the inline HTML tags around words', async () => {
    const r = await extractText(Buffer.from('Run `x` with <name> and <b>bold</b> H<sub>2</sub>O <span>.</span>\n'), { ...opts, filename: 'a.md' });
    expect(r.text).toBe('Run x with <name> and bold H2O .');
    expect(r.markdown).toBe('Run `x` with \\<name> and bold H2O .');
  });

  it('reads the escaped Markdown back to the same text', async () => {
    const first = await extractText(buildPdf({ pages: ['set style line <index> default'] }), opts);
    const again = await extractText(Buffer.from(first.markdown), { ...opts, filename: 'a.md' });
    expect(again.text).toBe(first.text);
  });
});
