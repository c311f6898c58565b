import { describe, expect, it } from 'vitest';
import { extractText, type ExtractOptions } from '../../worker/extractors/index.js';
import { boldBreaks, monotoneHeadings, numberedLevel } from '../../worker/extractors/pdf/headings.js';
import type { PdfLine } from '../../worker/extractors/pdf/lines.js';
import { buildPdf, type PdfRun } from '../fixtures/pdf.js';

const opts: ExtractOptions = { maxTextChars: 100_000, maxPdfPages: 50 };
const markdownOf = async (pages: PdfRun[][]) => (await extractText(buildPdf({ pages }), opts)).markdown;
const headingsOf = (md: string) => md.split('\n').filter((l) => /^#{1,6} /.test(l));

const body = (top: number, lines: string[]): PdfRun[] => lines.map((text, i) => ({ text, x: 72, y: top - i * 14 }));
const PROSE = ['This paragraph is plain body text that runs on', 'for a few lines so that the body size is the', 'most common size on the page and in the file.'];

describe('PDF headings without an outline', () => {
  it('reads the level of a numbered heading from its number, even in the body size', async () => {
    const md = await markdownOf([[
      { text: '1 Introduzione', x: 72, y: 740, size: 20 }, ...body(700, PROSE),
      { text: "1.1 Un po' di storia", x: 72, y: 640 }, ...body(620, PROSE),
      { text: '1.1.1 Le origini', x: 72, y: 560 }, ...body(540, PROSE),
    ]]);
    expect(headingsOf(md)).toEqual(['# 1 Introduzione', "## 1.1 Un po' di storia", '### 1.1.1 Le origini']);
  });

  it('joins a chapter label and the larger title under it into one first-level heading', async () => {
    const md = await markdownOf([[
      { text: 'Capitolo 1', x: 72, y: 740, size: 18 }, { text: 'Cose che bisogna sapere', x: 72, y: 700, size: 24 }, ...body(660, PROSE),
      { text: '1.1 Prima di cominciare', x: 72, y: 600, size: 14 }, ...body(580, PROSE),
    ]]);
    expect(headingsOf(md)).toEqual(['# Capitolo 1 Cose che bisogna sapere', '## 1.1 Prima di cominciare']);
  });

  it('keeps a section number set a quad before its title in the heading', async () => {
    const md = await markdownOf([[
      ...body(740, PROSE), { text: '2.3', x: 72, y: 680, size: 14 }, { text: 'Programs needed', x: 72 + 20 + 16, y: 680, size: 14 }, ...body(660, PROSE),
    ]]);
    expect(headingsOf(md)).toEqual(['# 2.3 Programs needed']);
  });

  it('makes no heading of the numbered entries of a table of contents', async () => {
    const toc = ['1.1 Getting started', '1.2 Choosing a program', '1.3 Building it', '2.1 Testing it', '2.2 Uploading it'];
    const md = await markdownOf([[...toc.map((text, i) => ({ text, x: 72, y: 740 - i * 24 })), ...body(600, PROSE)]]);
    expect(headingsOf(md)).toEqual([]);
    expect(md).toContain('1.2 Choosing a program');
  });

  it('never makes a heading of the rest of a hyphenated title', async () => {
    const md = await markdownOf([[
      { text: 'Installation in-', x: 72, y: 740, size: 20 }, { text: 'structions', x: 72, y: 700, size: 20 }, ...body(660, PROSE), ...body(600, PROSE),
    ]]);
    expect(headingsOf(md)).toEqual(['# Installation instructions']);
  });

  it('takes a body-size numbered line for a heading only when it reads like a title', () => {
    expect(numberedLevel('A.2 Managing symbols')).toBe(2);
    expect(numberedLevel('Chapter 8 Standard Extension')).toBe(1);
    expect(numberedLevel('Kapitel IV: Grundlagen')).toBe(1);
    expect(numberedLevel('2.5 million people live there.')).toBeUndefined();
    expect(numberedLevel('1.3 What is Linux?')).toBe(2);
    expect(numberedLevel('3.2. BUT WHAT ABOUT KNOPPIX, LINUX …')).toBeUndefined();
    expect(numberedLevel('2.5 million people live there')).toBeUndefined();
    expect(numberedLevel('1.2 Programs needed for development 3')).toBeUndefined();
    expect(numberedLevel('chapter 3 describes the rest')).toBeUndefined();
    expect(numberedLevel('4.4 rules')).toBeUndefined();
    expect(numberedLevel('4.4 rules', true)).toBe(2);
  });

  it('lets heading levels go down one step at a time over the whole document', () => {
    expect(monotoneHeadings(['### Title\n\ntext', '# One\n\n### One.one\n\n### One.two', '## Label\n\n# Two\n\n\\# not a heading']))
      .toEqual(['# Title\n\ntext', '# One\n\n## One.one\n\n## One.two', '## Label\n\n# Two\n\n\\# not a heading']);
  });

  it('takes a short bold line standing alone over body text for a heading, under the sized ones', async () => {
    const md = await markdownOf([[
      { text: 'Using the tools', x: 72, y: 740, size: 20 }, ...body(710, PROSE),
      { text: 'Before you start', x: 72, y: 652, font: 'bold' }, ...body(638, PROSE),
      { text: '2.4 Getting the sources', x: 72, y: 580, font: 'bold' }, ...body(566, PROSE),
    ]]);
    expect(headingsOf(md)).toEqual(['# Using the tools', '## Before you start', '## 2.4 Getting the sources']);
    expect(md).toContain('## Before you start\n\nThis paragraph is plain body text');
  });

  it('makes no heading of an unnumbered bold line where the sections are numbered: there it labels a paragraph', async () => {
    const md = await markdownOf([[
      { text: '2.1 Reading a graph', x: 72, y: 740, size: 16 }, ...body(716, PROSE),
      { text: 'Problem characteristics', x: 72, y: 660, font: 'bold' }, ...body(646, PROSE),
      { text: '2.2 Writing a graph', x: 72, y: 590, size: 16 }, ...body(566, PROSE),
      { text: '2.3 Checking a graph', x: 72, y: 510, size: 16 }, ...body(486, PROSE),
      { text: '2.3.1 Before you start', x: 72, y: 430, font: 'bold' }, ...body(416, PROSE),
    ]]);
    expect(headingsOf(md)).toEqual(['# 2.1 Reading a graph', '# 2.2 Writing a graph', '# 2.3 Checking a graph', '## 2.3.1 Before you start']);
    expect(md).toContain('Problem characteristics\n\nThis paragraph');
  });

  it('makes no heading of bold words in a sentence, a bold label, nor a run of bold terms', async () => {
    const md = await markdownOf([[
      ...body(740, PROSE),
      { text: 'Note:', x: 72, y: 680, font: 'bold' }, ...body(666, PROSE),
      { text: 'Option one', x: 72, y: 610, font: 'bold' }, { text: 'Option two', x: 72, y: 596, font: 'bold' }, { text: 'Option three', x: 72, y: 582, font: 'bold' },
      ...body(560, PROSE),
      { text: 'This line has', x: 72, y: 500 }, { text: 'bold words', x: 147, y: 500, font: 'bold' }, { text: 'in the middle of it and goes on.', x: 210, y: 500 },
      ...body(486, PROSE),
    ]]);
    expect(headingsOf(md)).toEqual([]);
  });

  it('breaks a paragraph where bold starts or stops on a title line, not before a line that goes on in lower case', () => {
    const line = (text: string, bold: boolean): PdfLine => ({ text, bold, x0: 72, x1: 300, y: 700, size: 12, block: 0, cells: 1 });
    expect(boldBreaks(line('The text before it ends here', false), line('Before you start', true))).toBe(true);
    expect(boldBreaks(line('Before you start', true), line('This paragraph follows the title', false))).toBe(true);
    // A two-line title whose first line mixes in code words, so it is not mostly bold.
    expect(boldBreaks(line('7.11 What is meant by unknown, install, remove, purge and hold in', false), line('the package status?', true))).toBe(false);
    expect(boldBreaks(line('Some bold words set in a long sentence that runs on past the width.', true), line('And the text after it', false))).toBe(false);
  });
});
