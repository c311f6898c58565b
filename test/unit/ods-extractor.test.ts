import { describe, expect, it } from 'vitest';
import { extractText } from '../../worker/extractors/index.js';
import { odfChartXml } from '../fixtures/chart.js';
import { buildOds as buildOdsWith, odsCell, odsSheet } from '../fixtures/ods.js';
import { buildZip } from '../fixtures/zip.js';

const OPTS = { maxTextChars: 5_000_000, maxPdfPages: 10, acceptedFormats: ['ods'] as const };
const NS = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"';

function buildOds(tables: string): Uint8Array {
  return buildZip([
    { name: 'mimetype', data: 'application/vnd.oasis.opendocument.spreadsheet', deflate: false },
    { name: 'META-INF/manifest.xml', data: '<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/></manifest:manifest>' },
    { name: 'content.xml', data: `<?xml version="1.0"?><office:document-content ${NS}><office:body><office:spreadsheet>${tables}</office:spreadsheet></office:body></office:document-content>` },
  ]);
}
const cell = (text: string, attrs = '') => `<table:table-cell ${attrs}><text:p>${text}</text:p></table:table-cell>`;

describe('ODS', () => {
  it('writes one section per sheet with the displayed text, never building empty repeats', async () => {
    const r = await extractText(buildOds(
      `<table:table table:name="Prices"><table:table-row>${cell('Item')}${cell('Price')}<table:table-cell table:number-columns-repeated="16000"/></table:table-row>`
      + `<table:table-row>${cell('Tea')}${cell('1,50 €', 'office:value-type="currency" office:value="1.5"')}</table:table-row>`
      + `<table:table-row table:number-rows-repeated="2">${cell('same')}${cell('x')}</table:table-row>`
      + '<table:table-row table:number-rows-repeated="1048570"><table:table-cell table:number-columns-repeated="1024"/></table:table-row></table:table>'
      + `<table:table table:name="Empty"/>`,
    ), OPTS);
    expect(r.format).toBe('ods');
    expect(r.markdown).toBe('## Prices\n\n| Item | Price |\n| --- | --- |\n| Tea | 1,50 € |\n| same | x |\n| same | x |\n\n## Empty');
  });

  it('writes the title, axis titles and series names of the charts drawn on a sheet after its table', async () => {
    const frame = '<table:shapes><draw:frame draw:name="Chart 1"><draw:object xlink:href="./Object 1"/></draw:frame></table:shapes>';
    const sheet = odsSheet('Sales', [[odsCell('Month'), odsCell('North'), odsCell('South')], [odsCell('Jan'), odsCell('41.5', { type: 'float', value: 41.5 }), odsCell('40', { type: 'float', value: 40 })]]).replace('<table:table-row>', `${frame}<table:table-row>`);
    const chart = odfChartXml({ title: 'Units sold', axes: ['Month', 'Units'], series: ['North', 'South'] });
    const r = await extractText(buildOdsWith(sheet, { extra: [{ name: 'Object 1/content.xml', data: chart }] }), OPTS);
    expect(r.markdown).toBe('## Sales\n\n| Month | North | South |\n| --- | --- | --- |\n| Jan | 41.5 | 40 |\n\nUnits sold\n\n- Month\n- Units\n- North\n- South');
  });

  it('reads spaces, tabs and line breaks inside a cell as spaces between its words', async () => {
    const r = await extractText(buildOdsWith(odsSheet('S', [[odsCell('line one<text:line-break/>line two<text:tab/>x<text:s text:c="2"/>y <text:span>z</text:span>')]])), OPTS);
    expect(r.markdown).toBe('## S\n\n|  |\n| --- |\n| line one line two x y z |');
  });
});
