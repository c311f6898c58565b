import { describe, expect, it } from 'vitest';
import { extractText, type ExtractOptions } from '../../worker/extractors/index.js';
import { buildPdf, type PdfRun } from '../fixtures/pdf.js';

const opts: ExtractOptions = { maxTextChars: 100_000, maxPdfPages: 50 };
const markdownOf = async (pages: Array<string | PdfRun[]>) => (await extractText(buildPdf({ pages }), opts)).markdown;

/** Lines of 12 pt text from the top of a column, `pitch` points apart. */
const column = (x: number, lines: string[], top = 700, pitch = 14): PdfRun[] => lines.map((text, i) => ({ text, x, y: top - i * pitch }));

const LEFT = [
  'The first column starts the article here',
  'and it goes on for a number of lines so',
  'that the page looks like a two column',
  'journal page with prose on either side',
  'of a clear gutter in the middle of it',
  'and ends its own text at this line.',
];
const RIGHT = [
  'The second column continues the text',
  'after the first one has ended and it',
  'also runs for a number of lines so the',
  'reader has to come here only after the',
  'left column is read from top to bottom',
  'which is what the reading order does.',
];

describe('PDF layout', () => {
  it('joins letter-spaced glyphs into words and keeps the spaces between words', async () => {
    const md = await markdownOf([[{ text: 'Please treatment carefully', x: 72, y: 700, letterSpacing: 2.4 }]]);
    expect(md).toBe('Please treatment carefully');
  });

  it('joins a two-letter word of a letter-spaced line as pdftotext does', async () => {
    const md = await markdownOf([[{ text: 'Letter spaced words in a title line', x: 72, y: 700, letterSpacing: 2 }]]);
    expect(md).toBe('Letter spaced words in a title line');
  });

  it('joins pieces of a word drawn in two fonts with no gap, and spaces words a space apart', async () => {
    // Helvetica "Mne" is 23.34 pt wide at 12 pt; "sia" in bold follows it at once, "waits" a space later.
    const md = await markdownOf([[{ text: 'Mne', x: 72, y: 700 }, { text: 'sia', x: 95.34, y: 700, font: 'bold' }, { text: 'waits', x: 115, y: 700 }]]);
    expect(md).toBe('Mnesia waits');
  });

  it('reads a two-column page column by column', async () => {
    const md = await markdownOf([[...column(72, LEFT), ...column(330, RIGHT)]]);
    expect(md).toBe(`${LEFT.join(' ')}\n\n${RIGHT.join(' ')}`);
  });

  it('reads a title spanning both columns before the columns', async () => {
    const title: PdfRun = { text: 'A Title Set Across Both Columns Of The Page', x: 150, y: 740 };
    const md = await markdownOf([[title, ...column(72, LEFT), ...column(330, RIGHT)]]);
    expect(md.indexOf('A Title Set')).toBe(0);
    expect(md.indexOf(LEFT[5]!)).toBeLessThan(md.indexOf(RIGHT[0]!));
  });

  it('finds the columns of each region of a page: three at the top, two under them with gutters elsewhere', async () => {
    const card = (x: number, name: string, top: number, n: number): PdfRun[] =>
      Array.from({ length: n }, (_, i) => ({ text: `${name} entry ${i + 1} of the card`, x, y: top - i * 11, size: 9 }));
    const wide = (x: number, name: string, top: number, n: number): PdfRun[] =>
      Array.from({ length: n }, (_, i) => ({ text: `${name} line ${i + 1} runs on across the width of the part`, x, y: top - i * 11, size: 9 }));
    const runs = [...card(36, 'Alpha', 740, 10), ...card(236, 'Beta', 740, 10), ...card(436, 'Gamma', 740, 10),
      ...wide(36, 'Delta', 600, 6), ...wide(316, 'Omega', 600, 6)];
    const text = (await extractText(buildPdf({ pages: [runs] }), opts)).text;
    const order = ['Alpha entry 1', 'Alpha entry 10', 'Beta entry 1', 'Beta entry 10', 'Gamma entry 1', 'Gamma entry 10',
      'Delta line 1', 'Delta line 6', 'Omega line 1', 'Omega line 6'].map((s) => text.indexOf(`${s} `));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // No paragraph holds two columns' text.
    for (const mixed of [/Alpha[^\n]*Beta/, /Beta[^\n]*Gamma/, /Delta[^\n]*Omega/]) expect(text).not.toMatch(mixed);
  });

  it('reads two columns over three short ones at the foot of the page column by column, not across', async () => {
    const card = (x: number, name: string, top: number, n: number): PdfRun[] =>
      Array.from({ length: n }, (_, i) => ({ text: `${name} entry ${i + 1} of the card`, x, y: top - i * 11, size: 9 }));
    const wide = (x: number, name: string, top: number, n: number): PdfRun[] =>
      Array.from({ length: n }, (_, i) => ({ text: `${name} line ${i + 1} runs on across the width of the part`, x, y: top - i * 11, size: 9 }));
    const runs = [...wide(36, 'Delta', 740, 12), ...wide(316, 'Omega', 740, 12), ...card(36, 'Alpha', 580, 4), ...card(236, 'Beta', 580, 4), ...card(436, 'Gamma', 580, 4)];
    const paragraphs = (await extractText(buildPdf({ pages: [runs] }), opts)).text.split('\n\n').map((p) => p.split(' ')[0]);
    expect(paragraphs).toEqual(['Delta', 'Omega', 'Alpha', 'Beta', 'Gamma']);
  });

  it('reads columns that go on past a gap across the page column by column', async () => {
    // Both columns break a paragraph at the same height: the same gutter above and below, so no part of its own.
    const md = await markdownOf([[...column(72, LEFT, 700), ...column(72, LEFT, 600), ...column(330, RIGHT, 700), ...column(330, RIGHT, 600)]]);
    const at = (s: string, from = 0) => md.indexOf(s, from);
    expect(at(LEFT[5]!, at(LEFT[5]!) + 1)).toBeLessThan(at(RIGHT[0]!));
  });

  it('joins the lines of a paragraph and breaks paragraphs at a wider line gap', async () => {
    const md = await markdownOf([[...column(72, ['One paragraph has', 'two lines.']), ...column(72, ['The next one', 'starts lower.'], 660)]]);
    expect(md).toBe('One paragraph has two lines.\n\nThe next one starts lower.');
  });

  it('breaks a paragraph at a first-line indent', async () => {
    const lines = column(72, ['This paragraph runs across the width of', 'the page and then stops right here.', 'Indented start of the next paragraph', 'which goes on at the left edge again.']);
    lines[2]!.x = 90;
    expect(await markdownOf([lines])).toBe('This paragraph runs across the width of the page and then stops right here.\n\n'
      + 'Indented start of the next paragraph which goes on at the left edge again.');
  });

  it('joins a word hyphenated across a line end and keeps the hyphen of a compound', async () => {
    const md = await markdownOf([column(72, [
      'A well-known method helps the recog-',
      'nition of non-',
      'English text and of well-',
      'known words.',
    ])]);
    expect(md).toBe('A well-known method helps the recognition of non-English text and of well-known words.');
  });

  it('joins a word hyphenated at the foot of a column with its end at the top of the next', async () => {
    const left = [...LEFT.slice(0, 5), 'and ends with a word that is hyphen-'];
    const right = ['ated across the gutter of the page and', ...RIGHT.slice(1)];
    expect(await markdownOf([[...column(72, left), ...column(330, right)]])).toContain('a word that is hyphenated across the gutter');
  });

  it('moves the end of a word hyphenated at the foot of a page to that page', async () => {
    const r = await extractText(buildPdf({ pages: ['The last word here is split-', 'ting, and the rest follows.'] }), opts);
    expect(r.markdown).toBe('The last word here is splitting,\n\nand the rest follows.');
    expect(r.pageStarts).toEqual([0, 'The last word here is splitting,\n\n'.length]);
  });

  it('removes a running footer of page numbers and keeps a running header once', async () => {
    const page = (n: number, body: string): PdfRun[] => [
      { text: 'Annual Report of the Society', x: 72, y: 760, size: 9 },
      { text: body, x: 72, y: 600 },
      { text: `Page ${n} of 4`, x: 280, y: 40, size: 9 },
    ];
    const r = await extractText(buildPdf({ pages: [1, 2, 3, 4].map((n) => page(n, `Body text of page ${n}.`)) }), opts);
    expect(r.markdown.match(/Annual Report of the Society/g)).toHaveLength(1);
    expect(r.markdown).not.toMatch(/Page \d of 4/);
    for (const n of [1, 2, 3, 4]) expect(r.markdown).toContain(`Body text of page ${n}.`);
  });

  it('collapses dot leaders of a table of contents, one entry a line', async () => {
    const md = await markdownOf([column(72, ['Introduction ........................ 3', 'Related work . . . . . . . . . . . . 7'])]);
    expect(md).toBe('Introduction 3\n\nRelated work 7');
  });

  it('makes a short line set clearly larger than the body a heading, and nothing else', async () => {
    const body = column(72, ['Body text is set in the normal size and', 'runs over several lines of the page so', 'that its size is the body size here.', 'More body text follows in a second line.'], 680);
    const md = await markdownOf([[{ text: 'Results Overview', x: 72, y: 730, size: 20 }, ...body]]);
    expect(md.split('\n\n')[0]).toBe('# Results Overview');
    expect(md.match(/^#/gm)).toHaveLength(1);
  });

  it('does not make a large line ending with a period a heading', async () => {
    const body = column(72, ['Body text is set in the normal size and', 'runs over several lines of the page so', 'that its size is the body size here.'], 680);
    const md = await markdownOf([[{ text: 'This large line is a sentence.', x: 72, y: 730, size: 20 }, ...body]]);
    expect(md).not.toMatch(/^#/m);
  });

  it('escapes a line that starts like a Markdown heading', async () => {
    expect(await markdownOf(['# comment in a listing'])).toBe('\\# comment in a listing');
  });

  it('appends filled form fields to their page as "name: value" lines', async () => {
    const pdf = buildPdf({
      pages: ['Application form', 'Second page'],
      fields: [
        { page: 0, name: 'form.applicant', tooltip: 'Applicant name', value: 'Ada Lovelace' },
        { page: 0, name: 'form.city[0]', value: 'London' },
        { page: 1, name: 'empty', value: '' },
      ],
    });
    const r = await extractText(pdf, opts);
    expect(r.markdown).toBe('Application form\n\nApplicant name: Ada Lovelace\ncity: London\n\nSecond page');
  });
});

describe('PDF progress', () => {
  it('reports each page read, out of the pages it reads', async () => {
    const seen: unknown[] = [];
    const pages = ['Page one has a line of text.', 'Page two has a line of text.', 'Page three has a line of text.'];
    await extractText(buildPdf({ pages }), { ...opts, maxPdfPages: 2, onProgress: (p) => seen.push(p) });
    expect(seen).toEqual([
      { pagesDone: 1, pagesTotal: 2 },
      { pagesDone: 2, pagesTotal: 2 },
    ]);
  });
});

