import { describe, expect, it } from 'vitest';
import mammoth from 'mammoth';
import { mammothReadString, UNREAD_ELEMENTS, useStreamingXmlReader } from '../../worker/extractors/docx/mammoth-xml.js';
import { buildDocx } from '../fixtures/docx.js';
import { readPlainXml, type MammothNode } from '../../worker/extractors/docx/xml-reader.js';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const MAP = { [W]: 'w', 'http://schemas.openxmlformats.org/markup-compatibility/2006': 'mc' };

// mammoth's tree as plain data: its Element instances carry methods the comparison should not see.
const plain = (node: MammothNode): unknown =>
  node.type === 'text' ? { ...node } : { name: node.name, attributes: { ...node.attributes }, children: node.children.map(plain) };

async function bothReaders(xml: string) {
  const streamed = readPlainXml(xml, MAP);
  const mammoth = (await mammothReadString(xml, MAP)) as MammothNode;
  return { streamed: streamed && plain(streamed), mammoth: plain(mammoth) };
}

describe('the streaming XML reader for mammoth', () => {
  it('gives the tree mammoth builds for namespaces, entities, whitespace, self-closed tags and line endings', async () => {
    const xml = [
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n',
      `<w:document xmlns:w="${W}" xmlns:x="urn:other" xmlns="urn:default" xml:lang="en">`,
      '<w:body>\r\n  <w:p w:rsidR="00AB"><w:r><w:rPr><w:b/><w:i w:val="0" /></w:rPr>',
      '<w:t xml:space="preserve"> Fish &amp; chips &lt;3 &#x1F600; &#233;\r\rend </w:t></w:r>',
      '<!-- a comment --><w:r><w:t>a<!-- x -->b</w:t></w:r><w:r><w:t>c<![CDATA[dropped]]>d</w:t></w:r>',
      '<x:thing x:attr="one&#10;two\tthree">text</x:thing><plain a="1"/>',
      '<w:sdt xmlns:w="urn:rebound"><w:p/></w:sdt></w:p>\n</w:body></w:document>\n',
    ].join('');
    const { streamed, mammoth } = await bothReaders(xml);
    expect(streamed).toEqual(mammoth);
    expect(JSON.stringify(streamed)).toContain(JSON.stringify(' Fish & chips <3 😀 é\n\nend '));
  });

  it('keeps text runs split where a comment or a CDATA section splits them, as mammoth does', async () => {
    const { streamed, mammoth } = await bothReaders(`<w:t xmlns:w="${W}">a<!-- x -->b<![CDATA[c]]>d</w:t>`);
    expect(streamed).toEqual(mammoth);
    expect(streamed).toEqual({ name: 'w:t', attributes: { '{http://www.w3.org/2000/xmlns/}w': W }, children: [{ type: 'text', value: 'a' }, { type: 'text', value: 'b' }, { type: 'text', value: 'd' }] });
  });

  it.each([
    ['a DOCTYPE', `<!DOCTYPE w [<!ENTITY e "x">]><w:t xmlns:w="${W}">&e;</w:t>`],
    ['an unknown entity', `<w:t xmlns:w="${W}">&nbsp;</w:t>`],
    ['a tag closed out of order', `<w:p xmlns:w="${W}"><w:r></w:p></w:r>`],
    ['a tag left open', `<w:p xmlns:w="${W}"><w:r>`],
    ['a prefix never declared', '<w:p><w:r/></w:p>'],
    ['a duplicate attribute', `<w:p xmlns:w="${W}" a="1" a="2"/>`],
    ['two root elements', `<w:p xmlns:w="${W}"/><w:p xmlns:w="${W}"/>`],
  ])('leaves %s to mammoth', (_, xml) => {
    expect(readPlainXml(xml, MAP)).toBeUndefined();
  });

  it('leaves out the elements it is told to skip with all they hold, and still refuses what is wrong inside them', () => {
    const xml = `<w:tc xmlns:w="${W}"><w:tcPr><w:tcBorders><w:top w:val="single"/></w:tcBorders><w:gridSpan w:val="2"/></w:tcPr><w:p><w:r><w:t>kept</w:t></w:r></w:p></w:tc>`;
    const tree = readPlainXml(xml, MAP, undefined, new Set(['w:tcBorders']));
    expect(JSON.stringify(tree && plain(tree))).not.toContain('w:top');
    expect(JSON.stringify(tree && plain(tree))).toContain('w:gridSpan');
    expect(JSON.stringify(tree && plain(tree))).toContain('kept');
    for (const bad of ['<w:top>&nbsp;</w:top>', '<w:top a="1" a="2"/>', '<q:top/>', '<w:top>']) {
      expect(readPlainXml(xml.replace('<w:top w:val="single"/>', bad), MAP, undefined, new Set(['w:tcBorders']))).toBeUndefined();
    }
  });

  it('gives mammoth the same HTML without the elements whose values it never writes', async () => {
    const props = '<w:rPr><w:rFonts w:ascii="Arial"/><w:b/><w:color w:val="FF0000"/><w:sz w:val="20"/><w:szCs w:val="20"/><w:lang w:val="en-GB"/></w:rPr>';
    const cell = (text: string, span = '') => `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/>${span}<w:tcBorders><w:top w:val="single"/><w:left w:val="single"/></w:tcBorders><w:shd w:fill="EEEEEE"/><w:vAlign w:val="center"/></w:tcPr><w:p><w:pPr><w:spacing w:after="0"/><w:jc w:val="center"/><w:ind w:left="720"/></w:pPr><w:r>${props}<w:t>${text}</w:t></w:r></w:p></w:tc>`;
    const table = `<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/><w:tblBorders><w:top w:val="single"/></w:tblBorders><w:tblLook w:val="04A0"/></w:tblPr><w:tr><w:trPr><w:trHeight w:val="300"/><w:tblHeader/></w:trPr>${cell('Head', '<w:gridSpan w:val="2"/>')}</w:tr><w:tr>${cell('a')}${cell('b')}</w:tr></w:tbl>`;
    const buffer = Buffer.from(buildDocx([{ xml: `<w:p><w:pPr><w:pStyle w:val="Heading1"/><w:keepNext/><w:spacing w:before="240"/></w:pPr><w:r>${props}<w:t>Title</w:t></w:r></w:p>` }, { xml: table }]));
    useStreamingXmlReader();
    const convert = async () => (await mammoth.convertToHtml({ buffer })).value;
    const skipping = await convert();
    expect(skipping).toContain('<h1><strong>Title</strong></h1>');
    expect(skipping).toContain('<th colspan="2">');
    expect(UNREAD_ELEMENTS.has('w:tcBorders')).toBe(true);
    const copy = [...UNREAD_ELEMENTS];
    (UNREAD_ELEMENTS as Set<string>).clear();
    try {
      expect(await convert()).toBe(skipping);
    } finally {
      for (const name of copy) (UNREAD_ELEMENTS as Set<string>).add(name);
    }
  });
});
