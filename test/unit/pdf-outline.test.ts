import { describe, expect, it } from 'vitest';
import { extractText, type ExtractOptions } from '../../worker/extractors/index.js';
import { buildPdf, type PdfOutlineItem, type PdfRun } from '../fixtures/pdf.js';

const opts: ExtractOptions = { maxTextChars: 100_000, maxPdfPages: 50 };
const markdownOf = async (pages: PdfRun[][], outline?: PdfOutlineItem[]) => (await extractText(buildPdf({ pages, outline }), opts)).markdown;
const headingsOf = (md: string) => md.split('\n').filter((l) => /^#{1,6} /.test(l));

const body = (top: number, lines: string[]): PdfRun[] => lines.map((text, i) => ({ text, x: 72, y: top - i * 14 }));
const PROSE = ['This paragraph is plain body text that runs on', 'for a few lines so that the body size is the', 'most common size on the page and in the file.'];

describe('PDF headings from the outline', () => {
  it('makes the outline entries headings at their depth, even when set in the body size', async () => {
    const md = await markdownOf(
      [[{ text: '1 Introduzione', x: 72, y: 740, size: 20 }, ...body(700, PROSE), { text: "1.1 Un po' di storia", x: 72, y: 640 }, ...body(620, PROSE)]],
      [{ title: '1 Introduzione', page: 0, top: 760, children: [{ title: "1.1 Un po' di storia", page: 0, top: 655 }] }],
    );
    expect(headingsOf(md)).toEqual(['# 1 Introduzione', "## 1.1 Un po' di storia"]);
  });

  it('joins a chapter label and the title the outline names into one heading at the title level', async () => {
    const md = await markdownOf(
      [[{ text: 'Capitolo 1', x: 72, y: 740, size: 18 }, { text: 'Cose che bisogna sapere', x: 72, y: 700, size: 24 }, ...body(660, PROSE)]],
      [{ title: 'Cose che bisogna sapere', page: 0, top: 760 }],
    );
    expect(headingsOf(md)).toEqual(['# Capitolo 1 Cose che bisogna sapere']);
    expect(md).not.toMatch(/^Capitolo 1$/m);
  });

  it('does not make a large line a heading when a deep outline leaves it out', async () => {
    const outline = [{ title: 'Part One', page: 0, top: 760, children: [{ title: 'Details', page: 0, top: 600 }] }];
    const md = await markdownOf([[{ text: 'Part One', x: 72, y: 740, size: 20 }, { text: 'Pull quote in large type', x: 72, y: 700, size: 16 },
      ...body(660, PROSE), { text: 'Details', x: 72, y: 590, size: 16 }, ...body(560, PROSE)]], outline);
    expect(headingsOf(md)).toEqual(['# Part One', '## Details']);
  });

  it('keeps a listing whose lines mix bold and regular fonts one paragraph under a deep outline, where bold makes no heading', async () => {
    const listing = [
      { text: 'canvas.setFont(name, size)', x: 72, y: 650 },
      { text: 'Draw the page', x: 72, y: 636, font: 'bold' as const },
      { text: 'canvas.showPage()', x: 72, y: 622 },
    ];
    const page = [{ text: 'Part One', x: 72, y: 740, size: 20 }, ...body(710, PROSE), ...listing];
    const deep = await markdownOf([page], [{ title: 'Part One', page: 0, top: 760, children: [{ title: 'Details', page: 0, top: 600 }] }]);
    expect(deep).toContain('canvas.setFont(name, size) Draw the page canvas.showPage()');
    // Without an outline, where bold can make a heading, the bold line starts a paragraph of its own.
    expect(await markdownOf([page])).toContain('canvas.setFont(name, size)\n\nDraw the page');
  });

  it('picks the occurrence nearest the destination when the title is on the page twice', async () => {
    const md = await markdownOf(
      [[...body(740, ['Results are discussed later, see below.']), { text: 'Results', x: 72, y: 700 }, ...body(680, PROSE), { text: 'Results', x: 72, y: 600, size: 16 }, ...body(580, PROSE)]],
      [{ title: 'Results', page: 0, top: 615 }],
    );
    expect(md).toMatch(/later, see below\.\n\nResults\n\n.*\n\n# Results\n\n/s);
  });

  it('puts in an entry whose text the page does not show, before the first paragraph below its destination', async () => {
    const md = await markdownOf([[...body(740, PROSE), ...body(600, ['A second paragraph starts lower on the page.'])]], [{ title: 'Unprinted section', page: 0, top: 620 }]);
    expect(md).toMatch(/most common size on the page and in the file\.\n\n# Unprinted section\n\nA second paragraph/);
  });

  it('takes the title from the outline when the page spells the same words with other marks', async () => {
    const md = await markdownOf([[{ text: 'glp set graph name | assign graph name', x: 72, y: 740, size: 16 }, ...body(700, PROSE)]],
      [{ title: 'glp_set_graph_name - assign graph name', page: 0, top: 760 }]);
    expect(headingsOf(md)).toEqual(['# glp_set_graph_name - assign graph name']);
  });
});

describe('PDF headings without an outline', () => {
  it('never starts a heading with the rest of a hyphenated word', async () => {
    const md = await markdownOf([[...body(740, PROSE), { text: 'structions for the machine', x: 72, y: 680, size: 16 }, ...body(650, PROSE)]]);
    expect(headingsOf(md)).toEqual([]);
  });

  it('still makes a short line in a larger size a heading', async () => {
    const md = await markdownOf([[{ text: 'Getting started', x: 72, y: 740, size: 18 }, ...body(700, PROSE)]]);
    expect(headingsOf(md)).toEqual(['# Getting started']);
  });

  it('finds the heading an outline entry names when the page lost a few of its letters, and shows the outline title', async () => {
    // A font that reads its ligatures as spaces and draws underscores as rules: "glp_read_graph ... file" shows as "glp read graph ... le".
    const outline = [{ title: 'Routines', page: 0, top: 760, children: [{ title: 'glp_read_graph - read graph from text file', page: 0, top: 660 }] }];
    const md = await markdownOf([[{ text: 'Routines', x: 72, y: 740, size: 20 }, ...body(710, PROSE),
      { text: '1.4.1 glp read graph - read graph from text le', x: 72, y: 650, size: 14 }, ...body(620, PROSE)]], outline);
    expect(headingsOf(md)).toEqual(['# Routines', '## 1.4.1 glp_read_graph - read graph from text file']);
    expect(md).not.toContain('text le');
  });

  it('does not take a different title with letters in common for the one an entry names', async () => {
    const outline = [{ title: 'Reading the configuration file', page: 0, top: 660 }];
    const md = await markdownOf([[...body(740, PROSE), { text: 'Reading the log', x: 72, y: 650 }, ...body(620, PROSE)]], outline);
    expect(headingsOf(md)).toEqual(['# Reading the configuration file']);
    expect(md).toContain('Reading the log');
  });

  it('takes both lines of a title set over two, not the first alone as the title with its last word lost', async () => {
    const outline = [{ title: 'How does one pronounce Debian and what does this word mean?', page: 0, top: 700 }];
    const md = await markdownOf([[...body(740, PROSE), { text: 'How does one pronounce Debian and what does this word', x: 72, y: 690, size: 14 },
      { text: 'mean?', x: 72, y: 672, size: 14 }, ...body(640, PROSE)]], outline);
    expect(headingsOf(md)).toEqual(['# How does one pronounce Debian and what does this word mean?']);
    expect(md).not.toMatch(/^mean\?$/m);
  });
});
