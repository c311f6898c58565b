import { describe, expect, it } from 'vitest';
import { extractText, type ExtractOptions } from '../../worker/extractors/index.js';
import { buildDocx, type DocxBlock } from '../fixtures/docx.js';

const opts: ExtractOptions = { maxTextChars: 100_000, maxPdfPages: 5, filename: 'a.docx' };

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const bold = (text: string): DocxBlock => ({ xml: `<w:p><w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">${esc(text)}</w:t></w:r></w:p>` });
const body = (text: string): DocxBlock => ({ para: text });
const markdownOf = async (blocks: DocxBlock[]) => (await extractText(buildDocx(blocks), opts)).markdown;

describe('DOCX headings without heading styles', () => {
  it('takes a short, wholly bold paragraph without a final period, followed by body text, for a heading', async () => {
    const md = await markdownOf([
      bold('Background'),
      body('The survey ran for two years across four regions.'),
      bold('Findings'),
      body('Most households reported lower costs.'),
    ]);
    expect(md).toBe('# Background\n\nThe survey ran for two years across four regions.\n\n# Findings\n\nMost households reported lower costs.');
  });

  it('leaves bold sentences, bold lines before other bold lines, and bold text in tables and lists as they are', async () => {
    const md = await markdownOf([
      bold('Read this before you start.'),
      body('Some text.'),
      bold('Name'),
      bold('Address'),
      body('Filled in by hand.'),
      { table: [['Total', 'Amount'], ['Rent', '400']] },
      { xml: '<w:tbl><w:tr><w:tc><w:p><w:r><w:rPr><w:b/></w:rPr><w:t>Cell title</w:t></w:r></w:p><w:p><w:r><w:t>cell text</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>x</w:t></w:r></w:p></w:tc></w:tr><w:tr><w:tc><w:p><w:r><w:t>y</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>z</w:t></w:r></w:p></w:tc></w:tr></w:tbl>' },
      { xml: '<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:rPr><w:b/></w:rPr><w:t>Bold item</w:t></w:r></w:p>' },
      body('After the list.'),
    ]);
    expect(md).not.toMatch(/^#/m);
    expect(md).toContain('**Read this before you start.**');
    expect(md).toContain('| **Cell title**<br>cell text | x |');
  });

  it('takes numbered section titles at their depth, and leaves a table of contents and numbered sentences alone', async () => {
    const md = await markdownOf([
      body('Contents'),
      { xml: '<w:p><w:r><w:t>1 Introduction</w:t></w:r><w:r><w:tab/></w:r><w:r><w:t>3</w:t></w:r></w:p>' },
      { xml: '<w:p><w:r><w:t>2 Methods</w:t></w:r><w:r><w:tab/></w:r><w:r><w:t>5</w:t></w:r></w:p>' },
      body('1 Introduction'),
      body('This report describes the study.'),
      body('2 Methods'),
      body('2.1 Sampling'),
      body('Households were drawn at random.'),
      body('2.2 Interviews'),
      body('Each interview took an hour.'),
      body('3 apples were eaten by the interviewers.'),
      body('That was all.'),
    ]);
    expect(md.match(/^#+ .*$/gm)).toEqual(['# 1 Introduction', '# 2 Methods', '## 2.1 Sampling', '## 2.2 Interviews']);
  });

  it('finds nothing in a document that uses heading styles', async () => {
    const md = await markdownOf([{ heading: 'Styled', level: 1 }, bold('Background'), body('The survey ran for two years.')]);
    expect(md).toBe('# Styled\n\n**Background**\n\nThe survey ran for two years.');
  });

  it('puts a bold heading one level under the numbered section before it', async () => {
    const md = await markdownOf([
      body('1.1 Scope'),
      body('What the study covers.'),
      bold('Exclusions'),
      body('What it leaves out.'),
      body('1.2 Terms'),
      body('Words used below.'),
    ]);
    expect(md.match(/^#+ .*$/gm)).toEqual(['## 1.1 Scope', '### Exclusions', '## 1.2 Terms']);
  });
});
