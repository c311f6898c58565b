import { describe, expect, it } from 'vitest';
import { extractText, type ExtractOptions } from '../../worker/extractors/index.js';
import { listItem } from '../../worker/extractors/pdf/lists.js';
import { markdownToText } from '../../worker/extractors/markdown/token-walker.js';
import { buildPdf, type PdfRun } from '../fixtures/pdf.js';

const opts: ExtractOptions = { maxTextChars: 100_000, maxPdfPages: 50 };
const markdownOf = async (pages: Array<string | PdfRun[]>) => (await extractText(buildPdf({ pages }), opts)).markdown;

/** Rows of cells from `top` down, `pitch` apart: each row's cells at the given x positions. */
const grid = (xs: number[], rows: string[][], top: number, size = 10, pitch = 12): PdfRun[] =>
  rows.flatMap((cells, r) => cells.map((text, c) => ({ text, x: xs[c]!, y: top - r * pitch, size })).filter((run) => run.text !== ''));

/** A reference card column: a description and its command per row. */
const card = (name: string, rows: number): string[][] =>
  Array.from({ length: rows }, (_, i) => [`${name} entry number ${i + 1}`, `${name[0]}cmd${i + 1}`]);

describe('PDF tables and regions', () => {
  it('reads a row of buttons over a form and a side column as one line before the columns', async () => {
    const left = ['You can open a PDF or create a blank one here.', 'Here are the drawings this tool has created for you.', 'Please save into a new file to see the effect.',
      'Goto Page 2: the line tool and its settings.', 'Goto Page 3: the arrow tool and its settings.', 'Goto Page 4: the shapes and their settings.'];
    const right = ['Print this', 'Online Help', 'Save a copy', 'Send by mail', 'Close form'];
    const page: PdfRun[] = [
      { text: 'First Page', x: 60, y: 756, size: 18 }, { text: 'Next Page', x: 200, y: 756, size: 18 }, { text: 'Last Page', x: 460, y: 756, size: 18 },
      ...left.map((text, i) => ({ text, x: 46, y: 700 - i * 20 })), ...right.map((text, i) => ({ text, x: 460, y: 711 - i * 37, size: 14 })),
    ];
    // Read as columns cut apart, and as columns a closing line crosses.
    const crossing = { text: 'A closing line that runs across the whole width of the page, under both of the columns.', x: 46, y: 540 };
    for (const runs of [page, [...page, crossing]]) {
      const md = await markdownOf([runs]);
      expect(md.split('\n\n')[0]).toBe('First Page Next Page Last Page');
      expect(md).toContain('Print this Online Help');
    }
  });

  it('reads three columns of description and command rows column after column, each as a table', async () => {
    // Baselines differ a little from column to column, as on a reference card; nothing lines up across the
    // gutters, and a note in the first column crosses the gap between its descriptions and commands.
    const alpha = card('alpha', 8);
    alpha.splice(4, 0, ['Note: optional arguments go in braces.', '']);
    const runs = [
      ...grid([20, 120], alpha, 700, 8),
      ...grid([220, 320], card('beta', 8), 696, 8),
      ...grid([420, 520], card('gamma', 8), 693, 8),
    ];
    const md = await markdownOf([runs]);
    const first = md.indexOf('| alpha entry number 1 | acmd1 |');
    const beta = md.indexOf('| beta entry number 1 | bcmd1 |');
    const gamma = md.indexOf('| gamma entry number 1 | gcmd1 |');
    expect(first).toBeGreaterThanOrEqual(0);
    expect(md.indexOf('Note: optional arguments go in braces.')).toBeGreaterThan(first);
    expect(md).toContain('| alpha entry number 8 | acmd8 |');
    expect(beta).toBeGreaterThan(md.indexOf('| alpha entry number 8 | acmd8 |'));
    expect(gamma).toBeGreaterThan(md.indexOf('| beta entry number 8 | bcmd8 |'));
    expect(md.match(/^\| --- \| --- \|$/gm)).toHaveLength(4);
  });

  it('rebuilds a column-aligned table under a paragraph as GFM rows, never gluing two cells', async () => {
    const md = await markdownOf([[
      { text: 'The archive keeps these packages in the suites below.', x: 72, y: 720 },
      ...grid([72, 220, 330], [['Package', 'Version', 'Suite'], ['coreutils', '9.1-1', 'bookworm'], ['bash', '5.2.15-2', 'bookworm'], ['hello', '2.10-3', 'release (optional)']], 690, 12, 16),
    ]]);
    expect(md).toBe('The archive keeps these packages in the suites below.\n\n'
      + '| Package | Version | Suite |\n| --- | --- | --- |\n| coreutils | 9.1-1 | bookworm |\n| bash | 5.2.15-2 | bookworm |\n| hello | 2.10-3 | release (optional) |');
  });

  it('puts a cell set a little off its column (a figure set flush right) in that column', async () => {
    const md = await markdownOf([grid([72, 200], [['Width', '12'], ['Height', '1024'], ['Depth', '3']], 700, 12, 16)
      .map((run) => (/^\d+$/.test(run.text) ? { ...run, x: run.x + 24 - 6 * run.text.length } : run))]);
    expect(md).toBe('| Width | 12 |\n| --- | --- |\n| Height | 1024 |\n| Depth | 3 |');
  });

  it('keeps two short columns of running text as paragraphs, never as a table', async () => {
    const left = ['Running text on the left goes on', 'over a few lines of its own column', 'and ends its sentence right here.'];
    const right = ['Running text on the right is read', 'after the left one, since it is in', 'the other column of the same page.'];
    const md = await markdownOf([grid([72, 330], left.map((l, i) => [l, right[i]!]), 700, 12, 14)]);
    expect(md).not.toContain('|');
  });

  it('keeps an entry of a table of contents a line, with its leaders collapsed', async () => {
    const md = await markdownOf([grid([72, 110], [['2.1', 'Symbolic names . . . . . . . . . . . . 10'], ['2.2', 'Numeric literals . . . . . . . . . . . 12']], 700, 12, 16)]);
    expect(md).not.toContain('|');
    expect(md).toContain('2.1 Symbolic names 10');
  });
});

describe('PDF lists', () => {
  it('makes bulleted paragraphs Markdown list items, nested by their indent', async () => {
    // The test writer's fonts use WinAnsiEncoding: 0x95 is the bullet "•", 0x96 the en dash "–".
    const md = await markdownOf([[
      { text: 'The upload step checks three things:', x: 72, y: 720 },
      { text: '\x95 the signature of the changes file,', x: 84, y: 700 },
      { text: '\x96 made with a key in the keyring,', x: 102, y: 684 },
      { text: '\x95 the checksums of every file, and', x: 84, y: 668 },
      { text: '\x95 the target suite.', x: 84, y: 652 },
    ]]);
    expect(md).toBe('The upload step checks three things:\n\n- the signature of the changes file,\n\n    - made with a key in the keyring,\n\n'
      + '- the checksums of every file, and\n\n- the target suite.');
  });

  it('keeps the numbers of a numbered list and joins an item wrapped over two lines', async () => {
    const md = await markdownOf([[
      { text: '1. Build the package in a clean chroot', x: 72, y: 720 },
      { text: 'with all build dependencies.', x: 86, y: 706 },
      { text: '2. Sign it.', x: 72, y: 690 },
    ]]);
    expect(md).toBe('1. Build the package in a clean chroot with all build dependencies.\n\n2. Sign it.');
  });
});

describe('PDF plain text', () => {
  it('is the text the page rebuild read, without Markdown marks, and keeps what Markdown would have read as syntax', async () => {
    const { markdown, text } = await extractText(buildPdf({ pages: [[
      { text: 'Pointers and *stars*', x: 72, y: 740, size: 20 },
      { text: 'Write int *p = &amp;x; then call __init__ and \\@tempcnta as printed.', x: 72, y: 700 },
      { text: '# not a heading, and <index> is text', x: 72, y: 650 },
      { text: '> not a quote', x: 72, y: 600 },
      { text: '\x95 the signature of the changes file,', x: 84, y: 560 },
      { text: '\x96 made with a key in the keyring,', x: 102, y: 544 },
      { text: '\x95 the target suite.', x: 84, y: 528 },
      { text: 'A closing paragraph about the implemen-', x: 72, y: 480 },
    ], [
      { text: 'tation, which goes on here.', x: 72, y: 740 },
      ...grid([72, 220, 330], [['Package', 'Version', 'Suite'], ['coreutils', '9.1-1', 'bookworm'], ['a|b', '5.2.15-2', 'bookworm'], ['hello', '2.10-3', 'sid']], 690, 12, 16),
    ]] }), opts);
    expect(markdown).toContain('# Pointers and *stars*');
    expect(markdown).toContain('\\# not a heading, and \\<index> is text');
    expect(markdown).toContain('- the signature of the changes file,\n\n    - made with a key in the keyring,\n\n- the target suite.');
    expect(markdown).toContain('| a\\|b | 5.2.15-2 | bookworm |');
    expect(text).toBe([
      'Pointers and *stars*',
      'Write int *p = &amp;x; then call __init__ and \\@tempcnta as printed.',
      '# not a heading, and <index> is text',
      '> not a quote',
      'the signature of the changes file,\n  made with a key in the keyring,\nthe target suite.',
      'A closing paragraph about the implementation,',
      'which goes on here.',
      'Package\tVersion\tSuite\ncoreutils\t9.1-1\tbookworm\na|b\t5.2.15-2\tbookworm\nhello\t2.10-3\tsid',
    ].join('\n\n'));
    // Read back from the Markdown, the same page would lose its stars, escapes and quote marks.
    expect(markdownToText(markdown)).not.toContain('*stars*');
    expect(markdownToText(markdown)).not.toContain('> not a quote');
  });
});

describe('PDF list items', () => {
  it('gives no item for a paragraph that no longer starts like one once its lines are joined', () => {
    expect(listItem('1.第一章', 0)).toBeUndefined();
    expect(listItem('2) Sign it.', 1)).toEqual({ indent: '    ', marker: '2.', body: 'Sign it.' });
  });
});

describe('PDF running headers', () => {
  it('removes a chapter\'s running header from every page it runs over, however few', async () => {
    const titles = ['Getting Started', 'R Basics', 'Data Frames', 'Graphics'];
    const pages = titles.flatMap((title, c) => [
      [{ text: `${c + 1} ${title}`, x: 72, y: 700, size: 16 }, { text: `The chapter on ${title.toLowerCase()} opens here.`, x: 72, y: 660 }],
      ...[1, 2, 3].map((p): PdfRun[] => [
        { text: `Chapter ${c + 1}: ${title}`, x: 72, y: 760, size: 9 },
        { text: `${c * 4 + p + 1}`, x: 520, y: 760, size: 9 },
        { text: `${['First', 'Second', 'Last'][p - 1]} page of the chapter on ${title.toLowerCase()}.`, x: 72, y: 700 },
      ]),
    ]);
    const md = await markdownOf(pages);
    expect(md).not.toMatch(/Chapter \d: /);
    for (const title of titles) expect(md).toContain(`Last page of the chapter on ${title.toLowerCase()}.`);
  });
});
