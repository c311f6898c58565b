import { describe, expect, it } from 'vitest';
import { extractText } from '../../worker/extractors/index.js';
import { extractPptx } from '../../worker/extractors/pptx/pptx.js';
import { chartXml } from '../fixtures/chart.js';
import { buildPptx } from '../fixtures/pptx.js';
import { buildZip } from '../fixtures/zip.js';

const OPTS = { maxTextChars: 5_000_000, maxPdfPages: 10, acceptedFormats: ['pptx'] as const };

describe('PPTX', () => {
  it('writes one section per slide in presentation order, titled, with bullets at their levels', async () => {
    const r = await extractText(buildPptx([
      { shapes: [{ ph: 'ctrTitle', paragraphs: ['Quarterly review'] }, { ph: 'subTitle', paragraphs: ['Finance team'] }] },
      { shapes: [{ ph: 'title', paragraphs: ['Results'] }, { ph: 'body', paragraphs: ['Revenue up', { text: 'Europe +12%', lvl: 1 }, { text: 'Asia +8%', lvl: 1 }, 'Costs flat'] }] },
    ]), OPTS);
    expect(r.format).toBe('pptx');
    expect(r.markdown).toBe('## Slide 1: Quarterly review\n\nFinance team\n\n## Slide 2: Results\n\n- Revenue up\n  - Europe +12%\n  - Asia +8%\n- Costs flat');
  });

  it('writes tables as GFM tables, text boxes as paragraphs unless they set a bullet', async () => {
    const r = await extractText(buildPptx([{
      shapes: [
        { ph: 'title', paragraphs: ['Plan'] },
        { table: [['Phase', 'When'], ['Build', 'Q1'], ['Ship', 'Q2']] },
        { paragraphs: ['A note in a box', { text: 'a bulleted line', bullet: true }] },
        { ph: 'body', paragraphs: [{ text: 'not a bullet', bullet: false }] },
      ],
    }]), OPTS);
    expect(r.markdown).toContain('| Phase | When |\n| --- | --- |\n| Build | Q1 |\n| Ship | Q2 |');
    expect(r.markdown).toContain('A note in a box\n\n- a bulleted line\n\nnot a bullet');
  });

  it('numbers auto-numbered paragraphs as an ordered list at their levels, from their start', async () => {
    const r = await extractText(buildPptx([{
      shapes: [
        { ph: 'title', paragraphs: ['Steps'] },
        { ph: 'body', paragraphs: [
          { text: 'Unpack', numbered: 1 }, { text: 'Check the parts', numbered: 1 },
          { text: 'screws', lvl: 1 }, { text: 'first half', lvl: 2, numbered: 1 }, { text: 'second half', lvl: 2, numbered: 1 },
          { text: 'Assemble', numbered: 1 },
        ] },
        { paragraphs: [{ text: 'Another box from seven', numbered: 7 }, { text: 'and eight', numbered: 7 }] },
      ],
    }]), OPTS);
    expect(r.markdown).toBe('## Slide 1: Steps\n\n1. Unpack\n2. Check the parts\n   - screws\n     1. first half\n     2. second half\n3. Assemble\n7. Another box from seven\n8. and eight');
  });

  it('keeps tag-like words and asterisks of slide text, titles and table cells in the text', async () => {
    const r = await extractText(buildPptx([{
      shapes: [
        { ph: 'title', paragraphs: ['The <Directory> block'] },
        { paragraphs: ['<IfModule mod_cache.c>', 'CacheEnable disk /', '</IfModule>', '*not emphasis*'] },
        { table: [['Tag', 'Use'], ['<br>', 'a break']] },
      ],
    }]), OPTS);
    for (const kept of ['The <Directory> block', '<IfModule mod_cache.c>', '</IfModule>', '*not emphasis*', '<br>']) expect(r.text).toContain(kept);
  });

  it('puts speaker notes under their slide and marks hidden slides', async () => {
    const r = await extractText(buildPptx([
      { shapes: [{ ph: 'title', paragraphs: ['Intro'] }], notes: ['Welcome everyone.', 'Mention the agenda.'] },
      { shapes: [{ ph: 'title', paragraphs: ['Backup'] }], hidden: true },
    ]), OPTS);
    expect(r.markdown).toBe('## Slide 1: Intro\n\n### Notes\n\nWelcome everyone.\n\nMention the agenda.\n\n## Slide 2 (hidden): Backup');
  });

  it('writes a chart\'s title, axis titles and series names under the slide, not its values', async () => {
    const NS = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart"';
    const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
    const frame = '<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="3" name="Chart"/></p:nvGraphicFramePr><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart r:id="rId2"/></a:graphicData></a:graphic></p:graphicFrame>';
    const title = '<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title"/><p:cNvSpPr/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>Sales</a:t></a:r></a:p></p:txBody></p:sp>';
    const r = await extractText(buildPptx([{ shapes: [] }], [
      { name: 'ppt/slides/slide1.xml', data: `<?xml version="1.0"?><p:sld ${NS}><p:cSld><p:spTree>${title}${frame}</p:spTree></p:cSld></p:sld>` },
      { name: 'ppt/slides/_rels/slide1.xml.rels', data: `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId2" Type="${REL}/chart" Target="../charts/chart1.xml"/></Relationships>` },
      { name: 'ppt/charts/chart1.xml', data: chartXml({ title: 'Revenue by region', axes: ['Quarter', 'Millions of euros'], series: ['North', 'South'], categories: ['Q1', 'Q2'] }) },
    ]), OPTS);
    expect(r.markdown).toBe('## Slide 1: Sales\n\nRevenue by region\n\n- Quarter\n- Millions of euros\n- North\n- South');
  });

  it('keeps the slide number, date and footer text a slide holds, and the text of grouped shapes and tables in a group', async () => {
    const NS = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
    const sp = (ph: string, inner: string) => `<p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr>${ph}</p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/>${inner}</p:txBody></p:sp>`;
    const number = sp('<p:ph type="sldNum" idx="12"/>', '<a:p><a:r><a:t>Page </a:t></a:r><a:fld id="{1}" type="slidenum"><a:t>7</a:t></a:fld></a:p>');
    const date = sp('<p:ph type="dt" idx="10"/>', '<a:p><a:r><a:t>March 2011</a:t></a:r></a:p>');
    // An empty placeholder shows the layout's text, which is not this slide's.
    const emptyFooter = sp('<p:ph type="ftr" idx="11"/>', '<a:p><a:endParaRPr/></a:p>');
    const table = '<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="5" name="T"/></p:nvGraphicFramePr><a:graphic><a:graphicData uri="t"><a:tbl><a:tr><a:tc><a:txBody><a:p><a:r><a:t>Cell one</a:t></a:r></a:p></a:txBody></a:tc></a:tr><a:tr><a:tc><a:txBody><a:p><a:r><a:t>Cell two</a:t></a:r></a:p></a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>';
    const group = `<p:grpSp><p:nvGrpSpPr><p:cNvPr id="4" name="g"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${sp('', '<a:p><a:r><a:t>Grouped words</a:t></a:r></a:p>')}${table}</p:grpSp>`;
    const r = await extractText(buildPptx([{ shapes: [] }], [
      { name: 'ppt/slides/slide1.xml', data: `<?xml version="1.0"?><p:sld ${NS}><p:cSld><p:spTree>${sp('<p:ph type="title"/>', '<a:p><a:r><a:t>Budget</a:t></a:r></a:p>')}${group}${date}${emptyFooter}${number}</p:spTree></p:cSld></p:sld>` },
    ]), OPTS);
    expect(r.markdown).toBe('## Slide 1: Budget\n\nGrouped words\n\n| Cell one |\n| --- |\n| Cell two |\n\nMarch 2011\n\nPage 7');
  });

  it('reads an equation from the runs of its fallback, so its words stay in the paragraph', async () => {
    const NS = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:a14="http://schemas.microsoft.com/office/drawing/2010/main" xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"';
    const math = '<mc:AlternateContent><mc:Choice Requires="a14"><a14:m><m:oMath><m:r><m:t>x=2</m:t></m:r></m:oMath></a14:m></mc:Choice><mc:Fallback><a:r><a:t>x=2</a:t></a:r></mc:Fallback></mc:AlternateContent>';
    const body = `<p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>Solve </a:t></a:r>${math}<a:r><a:t> for x</a:t></a:r></a:p></p:txBody></p:sp>`;
    const r = await extractText(buildPptx([{ shapes: [] }], [
      { name: 'ppt/slides/slide1.xml', data: `<?xml version="1.0"?><p:sld ${NS}><p:cSld><p:spTree>${body}</p:spTree></p:cSld></p:sld>` },
    ]), OPTS);
    expect(r.markdown).toBe('## Slide 1\n\nSolve x=2 for x');
  });

  it('refuses a slide declaring a DOCTYPE as corrupt', async () => {
    const bytes = buildPptx([{ shapes: [{ ph: 'title', paragraphs: ['x'] }] }], [
      { name: 'ppt/slides/slide1.xml', data: '<?xml version="1.0"?><!DOCTYPE p:sld [<!ENTITY x SYSTEM "file:///etc/hosts">]><p:sld xmlns:p="p"><p:cSld><p:spTree/></p:cSld></p:sld>' },
    ]);
    await expect(extractPptx(bytes, { maxTextChars: 1e6 })).rejects.toMatchObject({ code: 'corrupt' });
  });

  it('refuses a slide declaring 1 GiB unpacked as too complex', async () => {
    const bytes = buildPptx([{ shapes: [] }], [{ name: 'ppt/slides/slide1.xml', data: '<p:sld/>', declaredSize: 1024 * 1024 * 1024 }]);
    await expect(extractPptx(bytes, { maxTextChars: 1e6 })).rejects.toMatchObject({ code: 'too_complex' });
  });

  it('fails a ZIP without a presentation as corrupt', async () => {
    const bytes = buildZip([{ name: '_rels/.rels', data: '<Relationships/>' }, { name: 'ppt/slides/slide1.xml', data: '<p:sld/>' }]);
    await expect(extractPptx(bytes, { maxTextChars: 1e6 })).rejects.toMatchObject({ code: 'corrupt' });
  });
});
