import { describe, expect, it } from 'vitest';
import { extractText } from '../../worker/extractors/index.js';
import { extractOdt } from '../../worker/extractors/odt/odt.js';
import { odfChartXml } from '../fixtures/chart.js';
import { odsCell, odsSheet } from '../fixtures/ods.js';
import { buildOdt } from '../fixtures/odt.js';

const OPTS = { maxTextChars: 5_000_000, maxPdfPages: 10, acceptedFormats: ['odt'] as const };

describe('ODT', () => {
  it('writes headings, paragraphs, nested lists, tables and notes as DOCX does', async () => {
    const r = await extractText(buildOdt(
      '<text:h text:outline-level="1">Report</text:h>'
      + '<text:p>Plain <text:span>styled</text:span> text<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>A footnote.</text:p></text:note-body></text:note> with<text:s text:c="3"/>spaces.</text:p>'
      + '<text:list><text:list-item><text:p>First</text:p><text:list><text:list-item><text:p>Nested</text:p></text:list-item></text:list></text:list-item><text:list-item><text:p>Second</text:p></text:list-item></text:list>'
      + '<table:table><table:table-row><table:table-cell><text:p>Name</text:p></table:table-cell><table:table-cell><text:p>Role</text:p></table:table-cell></table:table-row>'
      + '<table:table-row><table:table-cell><text:p>Ada</text:p></table:table-cell><table:table-cell><text:p>Engineer</text:p></table:table-cell></table:table-row></table:table>'
      + '<text:h text:outline-level="2">Ref to <text:bookmark-ref>Report</text:bookmark-ref></text:h>',
      { title: 'The report' },
    ), OPTS);
    expect(r.format).toBe('odt');
    expect(r.title).toBe('The report');
    expect(r.markdown).toBe('# Report\n\nPlain styled text[1] with spaces.\n\n- First\n  - Nested\n- Second\n\n| Name | Role |\n| --- | --- |\n| Ada | Engineer |\n\n## Ref to Report\n\n1. A footnote.');
  });

  it('numbers the items of a numbered list style, from its start and on through a continued list, bullets below', async () => {
    const styles = '<text:list-style style:name="L1"><text:list-level-style-number text:level="1" style:num-suffix="." style:num-format="1" text:start-value="3"/>'
      + '<text:list-level-style-bullet text:level="2" text:bullet-char="•"/></text:list-style>';
    const item = (text: string, nested = '') => `<text:list-item><text:p>${text}</text:p>${nested}</text:list-item>`;
    const r = await extractText(buildOdt(
      `<text:list text:style-name="L1">${item('Third', `<text:list>${item('a point')}</text:list>`)}${item('Fourth')}</text:list>`
      + '<text:p>Between the lists.</text:p>'
      + `<text:list text:style-name="L1" text:continue-numbering="true">${item('Fifth')}</text:list>`
      + `<text:list text:style-name="L1">${item('Again third')}</text:list>`,
      { automaticStyles: styles },
    ), OPTS);
    expect(r.markdown).toBe('3. Third\n   - a point\n4. Fourth\n\nBetween the lists.\n\n5. Fifth\n\n3. Again third');
  });

  it('reads the text of an embedded formula object without parsing its DOCTYPE, powers and indices as they read', async () => {
    const formula = '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE math:math PUBLIC "-//OpenOffice.org//DTD Modified W3C MathML 1.01//EN" "math.dtd">'
      + '<math:math xmlns:math="http://www.w3.org/1998/Math/MathML"><math:semantics><math:mrow><math:mi>E</math:mi><math:mo>=</math:mo><math:mi>m</math:mi>'
      + '<math:msup><math:mi>c</math:mi><math:mn>2</math:mn></math:msup><math:mo>+</math:mo><math:msub><math:mi>x</math:mi><math:mn>10</math:mn></math:msub>'
      + '<math:mo>+</math:mo><math:msup><math:mi>e</math:mi><math:mrow><math:mi>i</math:mi><math:mi>&#x3C0;</math:mi></math:mrow></math:msup></math:mrow>'
      + '<math:annotation math:encoding="StarMath 5.0">E = m c^2 + x_10 + e^{i %pi}</math:annotation></math:semantics></math:math>';
    const r = await extractText(buildOdt(
      '<text:p>Energy: <draw:frame draw:name="Object1"><draw:object xlink:href="./Object 1" xlink:type="simple"/></draw:frame> as said.</text:p>',
      { extra: [{ name: 'Object 1/content.xml', data: formula }] },
    ), OPTS);
    expect(r.markdown).toBe('Energy: E = m c² + x₁₀ + e^(i π) as said.');
  });

  it('writes a chart object\'s title, subtitle, axis titles, series names and hand-written data labels after its paragraph', async () => {
    const chart = odfChartXml({ title: 'Sales', subtitle: 'By<text:line-break/>month', axes: ['Month', 'Units'], series: ['North', 'South'], labelCells: ['local-table.$B$1', 'local-table.$C$1'], dataLabel: 'Record' });
    const frame = (n: number) => `<draw:frame draw:name="Object${n}"><draw:object xlink:href="./Object ${n}" xlink:type="simple"/></draw:frame>`;
    const r = await extractText(buildOdt(
      `<text:p>Before the chart.${frame(1)}</text:p><text:p>After it.</text:p>${frame(2)}`,
      { extra: [{ name: 'Object 1/content.xml', data: chart }, { name: 'Object 2/content.xml', data: odfChartXml({ title: 'Second' }) }] },
    ), OPTS);
    expect(r.markdown).toBe('Before the chart.\n\nSales\n\n- By month\n- Month\n- Units\n- Record\n- North\n- South\n\nAfter it.\n\nSecond');
  });

  it('writes an embedded spreadsheet as a table after its paragraph, its formulas recalculated as in an ODS', async () => {
    const ns = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:calcext="urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0"';
    const sheet = odsSheet('Sheet1', [
      [odsCell('Number'), odsCell('Name')],
      [odsCell('1', { type: 'float', value: 1 }), odsCell('one embedded')],
      [odsCell('9', { formula: '[.A2]+1', type: 'float', value: 9 }), odsCell('two embedded')],
    ]);
    const object = `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ns}><office:body><office:spreadsheet>${sheet}</office:spreadsheet></office:body></office:document-content>`;
    const r = await extractText(buildOdt(
      '<text:p>See the table.<draw:frame><draw:object xlink:href="./Object 1"/></draw:frame></text:p><text:p>Done.</text:p>',
      { extra: [{ name: 'Object 1/content.xml', data: object }] },
    ), OPTS);
    expect(r.markdown).toBe('See the table.\n\n| Number | Name |\n| --- | --- |\n| 1 | one embedded |\n| 2 | two embedded |\n\nDone.');
  });

  it('fails a password-protected file as encrypted', async () => {
    const manifest = '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"><manifest:encryption-data manifest:checksum-type="SHA1"/></manifest:file-entry>';
    await expect(extractOdt(buildOdt('<text:p>x</text:p>', { manifest }))).rejects.toMatchObject({ code: 'encrypted' });
  });

  it('refuses a content part declaring a DOCTYPE as corrupt', async () => {
    // A second content.xml entry, written last, is the one the package reads.
    const hostile = { name: 'content.xml', data: '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY lol "lol"><!ENTITY ext SYSTEM "file:///etc/hosts">]><x>&lol; &ext;</x>' };
    await expect(extractOdt(buildOdt('<text:p>x</text:p>', { extra: [hostile] }))).rejects.toMatchObject({ code: 'corrupt' });
  });
});
