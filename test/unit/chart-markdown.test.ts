import { describe, expect, it } from 'vitest';
import { chartMarkdown, chartPlain } from '../../worker/extractors/office/chart-markdown.js';
import { extractText } from '../../worker/extractors/index.js';
import { chartXml, odfChartXml } from '../fixtures/chart.js';
import { odsCell, odsSheet, buildOds } from '../fixtures/ods.js';
import { buildOdt } from '../fixtures/odt.js';
import { buildPptx } from '../fixtures/pptx.js';
import { buildXlsx } from '../fixtures/xlsx.js';

const OPTS = { maxTextChars: 5_000_000, maxPdfPages: 10, acceptedFormats: ['xlsx', 'pptx', 'ods', 'odt'] as const };
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const rels = (id: string, type: string, target: string) =>
  `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="${id}" Type="${REL}/${type}" Target="${target}"/></Relationships>`;

// Words that read as Markdown if written as they are: emphasis, a tag, a heading, list markers, a quote.
const TITLE = '*Sales* <Q1> & returns';
const AXES = ['# Region', '1. Units'];
const SERIES = ['- North_east', '> South'];
const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
// The chart's words as every format has written them: the title a paragraph, the other labels a list.
const MARKDOWN = '\\*Sales\\* \\<Q1> & returns\n\n- \\# Region\n- 1\\. Units\n- \\- North_east\n- \\> South';

async function xlsx(): Promise<string> {
  const drawing = '<?xml version="1.0"?><xdr:wsDr xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart">'
    + '<xdr:twoCellAnchor><xdr:graphicFrame><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart r:id="rId7"/></a:graphicData></a:graphic></xdr:graphicFrame></xdr:twoCellAnchor></xdr:wsDr>';
  const r = await extractText(buildXlsx([{ name: 'Data', rows: [['Region', 'Sales'], ['North', 12]] }], [
    { name: 'xl/worksheets/_rels/sheet1.xml.rels', data: rels('rId1', 'drawing', '../drawings/drawing1.xml') },
    { name: 'xl/drawings/drawing1.xml', data: drawing },
    { name: 'xl/drawings/_rels/drawing1.xml.rels', data: rels('rId7', 'chart', '../charts/chart1.xml') },
    { name: 'xl/charts/chart1.xml', data: chartXml({ title: xml(TITLE), axes: AXES.map(xml), series: SERIES.map(xml), categories: ['North'] }) },
  ]), OPTS);
  expect(r.text).toBe(`Data\n\nRegion\tSales\nNorth\t12\n\n${TITLE}\n\n${[...AXES, ...SERIES].join('\n')}`);
  return r.markdown;
}

async function pptx(): Promise<string> {
  const NS = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart"';
  const frame = '<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="3" name="Chart"/></p:nvGraphicFramePr><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart r:id="rId2"/></a:graphicData></a:graphic></p:graphicFrame>';
  const title = '<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title"/><p:cNvSpPr/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>Data</a:t></a:r></a:p></p:txBody></p:sp>';
  const r = await extractText(buildPptx([{ shapes: [] }], [
    { name: 'ppt/slides/slide1.xml', data: `<?xml version="1.0"?><p:sld ${NS}><p:cSld><p:spTree>${title}${frame}</p:spTree></p:cSld></p:sld>` },
    { name: 'ppt/slides/_rels/slide1.xml.rels', data: rels('rId2', 'chart', '../charts/chart1.xml') },
    { name: 'ppt/charts/chart1.xml', data: chartXml({ title: xml(TITLE), axes: AXES.map(xml), series: SERIES.map(xml), categories: ['North'] }) },
  ]), OPTS);
  return r.markdown;
}

async function ods(): Promise<string> {
  const frame = '<table:shapes><draw:frame draw:name="Chart 1"><draw:object xlink:href="./Object 1"/></draw:frame></table:shapes>';
  const sheet = odsSheet('Data', [[odsCell('Region'), odsCell('Sales')], [odsCell('North'), odsCell('12', { type: 'float', value: 12 })]]).replace('<table:table-row>', `${frame}<table:table-row>`);
  const chart = odfChartXml({ title: xml(TITLE), axes: AXES.map(xml), series: SERIES.map(xml), labelCells: ['local-table.$B$1', 'local-table.$C$1'] });
  return (await extractText(buildOds(sheet, { extra: [{ name: 'Object 1/content.xml', data: chart }] }), OPTS)).markdown;
}

async function odt(): Promise<string> {
  const chart = odfChartXml({ title: xml(TITLE), axes: AXES.map(xml), series: SERIES.map(xml), labelCells: ['local-table.$B$1', 'local-table.$C$1'] });
  const r = await extractText(buildOdt('<text:p>Before.<draw:frame draw:name="Object1"><draw:object xlink:href="./Object 1" xlink:type="simple"/></draw:frame></text:p>',
    { extra: [{ name: 'Object 1/content.xml', data: chart }] }), OPTS);
  return r.markdown;
}

describe('the words of a chart as Markdown, in every format that draws charts', () => {
  it('writes the same title paragraph and label list, escaped, from XLSX, PPTX, ODS and ODT', async () => {
    expect(await xlsx()).toBe(`## Data\n\n| Region | Sales |\n| --- | --- |\n| North | 12 |\n\n${MARKDOWN}`);
    expect(await pptx()).toBe(`## Slide 1: Data\n\n${MARKDOWN}`);
    expect(await ods()).toBe(`## Data\n\n| Region | Sales |\n| --- | --- |\n| North | 12 |\n\n${MARKDOWN}`);
    expect(await odt()).toBe(`Before.\n\n${MARKDOWN}`);
  });

  it('writes a chart without a title as its list alone, and one with only a title as its paragraph', () => {
    expect(chartMarkdown({ title: undefined, labels: ['a', 'b'] })).toBe('- a\n- b');
    expect(chartMarkdown({ title: '2024', labels: [] })).toBe('2024');
    expect(chartPlain({ title: '*T*', labels: ['a', 'b'] })).toBe('*T*\n\na\nb');
  });
});
