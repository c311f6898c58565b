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
