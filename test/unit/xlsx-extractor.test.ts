import { describe, expect, it } from 'vitest';
import { extractText } from '../../worker/extractors/index.js';
import { extractXlsx } from '../../worker/extractors/xlsx/xlsx.js';
import { chartXml } from '../fixtures/chart.js';
import { buildXlsx } from '../fixtures/xlsx.js';
import { buildZip } from '../fixtures/zip.js';

const OPTS = { maxTextChars: 5_000_000, maxPdfPages: 10, acceptedFormats: ['xlsx'] as const };

describe('XLSX', () => {
  it('writes one section per sheet in order, the used range as a table with its header', async () => {
    const r = await extractText(buildXlsx([
      { name: 'People', rows: [['Name', 'Age'], ['Ada', 36], ['Alan', 41]] },
      { name: 'Cities & towns', rows: [[null, null], [null, 'London']] },
    ]), OPTS);
    expect(r.format).toBe('xlsx');
    expect(r.markdown).toBe('## People\n\n| Name | Age |\n| --- | --- |\n| Ada | 36 |\n| Alan | 41 |\n\n## Cities & towns\n\n|  |\n| --- |\n| London |');
  });

  it('shows cached formula values, booleans, errors and formatted numbers and dates, never formulas', async () => {
    const r = await extractText(buildXlsx([{
      name: 'Calc',
      rows: [
        ['Item', 'Value'],
        ['sum', { xml: '<f>SUM(B3:B4)</f><v>3</v>' }],
        ['date', { attrs: 's="1"', xml: '<v>45292</v>' }],
        ['share', { attrs: 's="2"', xml: '<v>0.1234</v>' }],
        ['money', { attrs: 's="3"', xml: '<v>1234567.891</v>' }],
        ['flag', { attrs: 't="b"', xml: '<v>1</v>' }],
        ['error', { attrs: 't="e"', xml: '<f>1/0</f><v>#DIV/0!</v>' }],
        ['text formula', { attrs: 't="str"', xml: '<f>A1&amp;"x"</f><v>Itemx</v>' }],
        ['general', 0.1 + 0.2],
      ],
    }]), OPTS);
    expect(r.markdown).toContain('| sum | 3 |');
    expect(r.markdown).toContain('| date | 2024-01-01 |');
    expect(r.markdown).toContain('| share | 12.3% |');
    expect(r.markdown).toContain('| money | 1,234,567.89 |');
    expect(r.markdown).toContain('| flag | TRUE |');
    expect(r.markdown).toContain('| error | #DIV/0! |');
    expect(r.markdown).toContain('| text formula | Itemx |');
    expect(r.markdown).toContain('| general | 0.3 |');
    expect(r.markdown).not.toContain('SUM(');
  });

  it('repeats a merged value, marks hidden sheets and skips very hidden ones', async () => {
    const r = await extractText(buildXlsx([
      { name: 'Merged', rows: [['Region', null], ['North', 'South']], merges: ['A1:B1'] },
      { name: 'Lookup', rows: [['secret list']], state: 'hidden' },
      { name: 'Macros', rows: [['never shown']], state: 'veryHidden' },
    ]), OPTS);
    expect(r.markdown).toContain('| Region | Region |');
    expect(r.markdown).toContain('## Lookup (hidden)');
    expect(r.markdown).not.toContain('never shown');
  });

  it('caps rows per workbook over all sheets and marks the result partial_text', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => [`row ${i}`, i]);
    const r = await extractXlsx(buildXlsx([{ name: 'A', rows }, { name: 'B', rows }]), { maxTextChars: 1e6, caps: { maxRows: 40, maxColumns: 10, maxCells: 1000 } });
    expect(r.truncated).toBe(true);
    expect(r.warnings?.[0]?.code).toBe('partial_text');
    expect(r.markdown).toContain('| row 9 | 9 |');
    expect(r.markdown?.match(/\| row \d+ \|/g)).toHaveLength(40);
  });

  it('reads Cyrillic, Arabic and Japanese text and sheet names intact', async () => {
    const r = await extractText(buildXlsx([{ name: 'Лист 1', rows: [['Привет', 'مرحبا', '日本語']] }, { name: 'عربى', rows: [['نص']] }]), OPTS);
    expect(r.markdown).toContain('## Лист 1');
    expect(r.markdown).toContain('| Привет | مرحبا | 日本語 |');
    expect(r.markdown).toContain('## عربى');
  });

  it('finds the workbook through part names written with backslashes', async () => {
    const bytes = buildXlsx([{ name: 'S', rows: [['a', 'b'], ['c', 'd']] }]);
    const renamed = Buffer.from(bytes);
    // Same length names, so the archive stays valid: xl/worksheets/sheet1.xml -> xl\worksheets\sheet1.xml.
    for (const name of ['xl/worksheets/sheet1.xml', 'xl/workbook.xml', 'xl/sharedStrings.xml']) {
      let at = renamed.indexOf(name);
      while (at >= 0) {
        renamed.write(name.replace(/\//g, '\\'), at, 'latin1');
        at = renamed.indexOf(name, at + 1);
      }
    }
    const r = await extractXlsx(renamed, { maxTextChars: 1e6 });
    expect(r.markdown).toContain('| c | d |');
  });

  it('writes the title, axis titles and series names of a sheet\'s charts after its table', async () => {
    const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
    const rels = (id: string, type: string, target: string) => `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="${id}" Type="${REL}/${type}" Target="${target}"/></Relationships>`;
    const drawing = '<?xml version="1.0"?><xdr:wsDr xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart">'
      + '<xdr:twoCellAnchor><xdr:graphicFrame><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart r:id="rId7"/></a:graphicData></a:graphic></xdr:graphicFrame></xdr:twoCellAnchor></xdr:wsDr>';
    const r = await extractText(buildXlsx([{ name: 'Data', rows: [['Region', 'Sales'], ['North', 12], ['South', 30]] }], [
      { name: 'xl/worksheets/_rels/sheet1.xml.rels', data: rels('rId1', 'drawing', '../drawings/drawing1.xml') },
      { name: 'xl/drawings/drawing1.xml', data: drawing },
      { name: 'xl/drawings/_rels/drawing1.xml.rels', data: rels('rId7', 'chart', '../charts/chart1.xml') },
      { name: 'xl/charts/chart1.xml', data: chartXml({ title: 'Sales &amp; returns', axes: ['Region'], series: ['Sales'], categories: ['North', 'South'] }) },
    ]), OPTS);
    expect(r.markdown).toBe('## Data\n\n| Region | Sales |\n| --- | --- |\n| North | 12 |\n| South | 30 |\n\nSales & returns\n\n- Region\n- Sales');
    expect(r.text).toBe('Data\n\nRegion\tSales\nNorth\t12\nSouth\t30\n\nSales & returns\n\nRegion\nSales');
  });

  it('fails a ZIP without a workbook as corrupt', async () => {
    const bytes = buildZip([{ name: '_rels/.rels', data: '<Relationships/>' }, { name: 'xl/styles.xml', data: '<styleSheet/>' }]);
    await expect(extractXlsx(bytes, { maxTextChars: 1e6 })).rejects.toMatchObject({ code: 'corrupt' });
  });
});

describe('number formats', () => {
  it('shows dates in the order and fields their format names, literals kept', async () => {
    const { formatNumber } = await import('../../worker/extractors/xlsx/cell-format.js');
    expect(formatNumber(43132, 'dd\\.mm\\.yyyy')).toBe('01.02.2018');
    expect(formatNumber(38971, 'mmmm d", "yyyy')).toBe('September 11, 2006');
    expect(formatNumber(42238, 'm/d/yyyy')).toBe('8/22/2015');
    expect(formatNumber(45292.75, 'yyyy-mm-dd h:mm AM/PM')).toBe('2024-01-01 6:00 PM');
    expect(formatNumber(-1234.5, '#,##0.00;(#,##0.00)')).toBe('(1,234.50)');
    expect(formatNumber(0.5, '0%')).toBe('50%');
  });

  it('shows a format\'s literal text around the number, and its negative section\'s parentheses', async () => {
    const { formatNumber } = await import('../../worker/extractors/xlsx/cell-format.js');
    expect(formatNumber(2300, '"$"#,##0')).toBe('$2,300');
    expect(formatNumber(-2300, '"$"#,##0')).toBe('-$2,300');
    expect(formatNumber(-1234, '"$"#,##0.00_);[Red]\\("$"#,##0.00\\)')).toBe('($1,234.00)');
    expect(formatNumber(-1234.5, '_("$"* #,##0.00_);_("$"* \\(#,##0.00\\);_("$"* "-"??_);_(@_)')).toBe('$(1,234.50)');
    expect(formatNumber(12.5, '#,##0.0" kg"')).toBe('12.5 kg');
    expect(formatNumber(-5, '_ * #,##0_ ;_ * \\-#,##0_ ;_ * "-"_ ;_ @_ ')).toBe('-5');
  });

  it('shows the digits a numeral-system locale tag names, in the language\'s own digits where it has them', async () => {
    const { formatNumber } = await import('../../worker/extractors/xlsx/cell-format.js');
    // LibreOffice 7.4 shows these (the corpus's poi-right-to-left.xlsx has the first).
    expect(formatNumber(123, '[$-3000401]0')).toBe('١٢٣');
    expect(formatNumber(1234567.5, '[$-2000401]#,##0.00')).toBe('١٬٢٣٤٬٥٦٧٫٥٠');
    expect(formatNumber(-42, '[$-3000401]#,##0.00')).toBe('-٤٢٫٠٠');
    expect(formatNumber(45292, '[$-D00041E]d/m/yyyy')).toBe('๑/๑/๒๐๒๔');
    // A language without digits of its own takes the ones the tag names; no numeral system, no change.
    expect(formatNumber(123, '[$-D000409]0')).toBe('๑๒๓');
    expect(formatNumber(123, '[$-1000401]0')).toBe('123');
    expect(formatNumber(45292, '[$-409]mmmm\\ d\\,\\ yyyy;@')).toBe('January 1, 2024');
  });

  it('rounds halves away from zero in decimal, as the sheet shows them, not as binary toFixed does', async () => {
    const { formatNumber } = await import('../../worker/extractors/xlsx/cell-format.js');
    // 0.2395 * 100 is 23.949999… in binary: toFixed(1) gives 23.9, a spreadsheet 24.0.
    expect(formatNumber(0.2395, '0.0%')).toBe('24.0%');
    expect(formatNumber(2.675, '0.00')).toBe('2.68');
    expect(formatNumber(-2.675, '0.00')).toBe('-2.68');
    expect(formatNumber(1.005, '#,##0.00')).toBe('1.01');
    expect(formatNumber(1234567.125, '#,##0.00')).toBe('1,234,567.13');
    expect(formatNumber(0.0000001, '0.00')).toBe('0.00');
  });
});
