import { describe, expect, it } from 'vitest';
import { extractText, type ExtractOptions } from '../../worker/extractors/index.js';
import { orderAgreement } from '../../scripts/lib/fidelity-metrics.js';
import { buildPdf, type PdfRun } from '../fixtures/pdf.js';
import { referenceCard, type CardSpec } from '../fixtures/pdf-card.js';

const opts: ExtractOptions = { maxTextChars: 100_000, maxPdfPages: 5 };

async function readCard(spec: CardSpec): Promise<{ text: string; lines: string[] }> {
  const card = referenceCard(spec);
  const out = await extractText(buildPdf({ pages: [card.runs], pageSize: card.pageSize }), opts);
  return { text: out.text, lines: card.lines };
}

describe('PDF reading order of reference cards', () => {
  it.each<CardSpec>([
    { columns: 3, grid: true },
    { columns: 4, grid: true, gutter: 4, seed: 5 },
    { columns: 3, grid: true, filled: true, gutter: 4 },
    { columns: 3, grid: true, filled: true, gutter: 8, title: 'Editor Reference Card' },
  ])('reads the boxes of a card on one grid of baselines column by column: %o', async (spec) => {
    const { text, lines } = await readCard(spec);
    expect(orderAgreement(lines.join('\n'), text)).toBe(1);
    // Each box's title comes right before its first row, not beside a neighbouring column's row.
    const heading = lines.find((l) => l.endsWith(' 2.1'))!;
    expect(text).toContain(`${heading}\n\n${lines[lines.indexOf(heading) + 1]!.split(' ')[0]}`);
  });

  it('reads boxes whose headings fall on different heights column by column', async () => {
    const { text, lines } = await readCard({ columns: 4, seed: 7 });
    expect(orderAgreement(lines.join('\n'), text)).toBe(1);
  });

  it('still reads a table of two key and value pairs a row across, not as two columns', async () => {
    // Four cells a row on shared baselines, nothing running across the gaps inside a pair.
    const runs: PdfRun[] = [];
    for (let r = 0; r < 8; r++) {
      const y = 700 - r * 14;
      runs.push({ text: `name${r}`, x: 72, y, size: 10 }, { text: `value ${r}a`, x: 160, y, size: 10 },
        { text: `key${r}`, x: 320, y, size: 10 }, { text: `setting ${r}b`, x: 410, y, size: 10 });
    }
    const out = await extractText(buildPdf({ pages: [runs] }), opts);
    expect(out.text.split('\n')[0]).toBe('name0\tvalue 0a\tkey0\tsetting 0b');
  });

  it('reads an ordinary two-column page of prose on shared baselines column by column, as before', async () => {
    const left = ['The first column starts the article here', 'and it goes on for a number of lines so', 'that the page looks like a two column',
      'journal page with prose on either side', 'of a clear gutter in the middle of it', 'and ends its own text at this line.'];
    const right = ['The second column continues the text', 'after the first one has ended and it', 'also runs for a number of lines so the',
      'reader has to come here only after the', 'left column is read from top to bottom', 'which is what the reading order does.'];
    const runs: PdfRun[] = [...left.map((text, i) => ({ text, x: 72, y: 700 - i * 14 })), ...right.map((text, i) => ({ text, x: 330, y: 700 - i * 14 }))];
    const out = await extractText(buildPdf({ pages: [runs] }), opts);
    expect(out.text).toBe(`${left.join(' ')}\n\n${right.join(' ')}`);
  });
});
