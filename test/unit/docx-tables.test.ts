import { describe, expect, it } from 'vitest';
import { extractText, type ExtractOptions } from '../../worker/extractors/index.js';
import { buildDocx } from '../fixtures/docx.js';

const opts: ExtractOptions = { maxTextChars: 100_000, maxPdfPages: 5, filename: 'a.docx' };

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const p = (text: string, pPr = '') => `<w:p>${pPr ? `<w:pPr>${pPr}</w:pPr>` : ''}<w:r><w:t xml:space="preserve">${esc(text)}</w:t></w:r></w:p>`;
const tc = (content: string, tcPr = '') => `<w:tc>${tcPr ? `<w:tcPr>${tcPr}</w:tcPr>` : ''}${content}</w:tc>`;
const tr = (...cells: string[]) => `<w:tr>${cells.join('')}</w:tr>`;
const tbl = (...rows: string[]) => `<w:tbl>${rows.join('')}</w:tbl>`;
const bullet = (text: string) => p(text, '<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>');

describe('DOCX tables', () => {
  it('keeps every row of a table whose cells hold several paragraphs, the paragraphs joined by <br>', async () => {
    const rows = Array.from({ length: 40 }, (_, i) => [`Field ${i}`, `First paragraph of ${i}.\nSecond paragraph of ${i}.`]);
    const r = await extractText(buildDocx([{ table: [['Name', 'Meaning'], ...rows] }]), opts);
    const lines = r.markdown.split('\n');
    expect(lines[0]).toBe('| Name | Meaning |');
    expect(lines.filter((l) => l.startsWith('| Field '))).toHaveLength(40);
    expect(lines).toContain('| Field 7 | First paragraph of 7.<br>Second paragraph of 7. |');
    expect(r.text).toContain('Field 7\tFirst paragraph of 7. Second paragraph of 7.');
  });

  it('keeps one row per Word row when cells hold a heading, a list or a nested table, the nested table flattened into its cell', async () => {
    const nested = tbl(tr(tc(p('a1')), tc(p('b1'))), tr(tc(p('a2')), tc(p('b2'))));
    const xml = tbl(
      tr(tc(p('Step')), tc(p('Details'))),
      tr(tc(p('Plan', '<w:pStyle w:val="Heading2"/>')), tc(bullet('first') + bullet('second'))),
      tr(tc(p('Matrix')), tc(p('See below:') + nested)),
      tr(tc(p('Close')), tc(p('Done.'))),
    );
    const r = await extractText(buildDocx([{ para: 'Before.' }, { xml }, { para: 'After.' }]), opts);
    expect(r.markdown).toBe([
      'Before.',
      '',
      '| Step | Details |',
      '| --- | --- |',
      '| Plan | - first<br>- second |',
      '| Matrix | See below:<br>a1 b1<br>a2 b2 |',
      '| Close | Done. |',
      '',
      'After.',
    ].join('\n'));
    expect(r.text).toContain('Matrix\tSee below: a1 b1 a2 b2');
    expect(r.markdown).not.toMatch(/^#/m);
  });

  it('keeps the column count of rows with merged cells (gridSpan across, vMerge down)', async () => {
    const xml = tbl(
      tr(tc(p('Region')), tc(p('Q1')), tc(p('Q2'))),
      tr(tc(p('North'), '<w:vMerge w:val="restart"/>'), tc(p('10')), tc(p('12'))),
      tr(tc(p(''), '<w:vMerge/>'), tc(p('11')), tc(p('13'))),
      tr(tc(p('Total across both'), '<w:gridSpan w:val="2"/>'), tc(p('46'))),
    );
    const r = await extractText(buildDocx([{ xml }]), opts);
    expect(r.markdown).toBe('| Region | Q1 | Q2 |\n| --- | --- | --- |\n| North | 10 | 12 |\n|  | 11 | 13 |\n| Total across both |  | 46 |');
  });

  it('keeps a one-column table as a table, and reads a one-cell frame as its paragraphs', async () => {
    const column = tbl(tr(tc(p('Checklist'))), tr(tc(p('Back up.') + p('Twice.'))), tr(tc(p('Restore.'))));
    const frame = tbl(tr(tc(p('Boxed heading', '<w:pStyle w:val="Heading1"/>') + p('Boxed text.'))));
    const r = await extractText(buildDocx([{ xml: column }, { xml: frame }]), opts);
    expect(r.markdown).toBe('| Checklist |\n| --- |\n| Back up.<br>Twice. |\n| Restore. |\n\n# Boxed heading\n\nBoxed text.');
  });
});
