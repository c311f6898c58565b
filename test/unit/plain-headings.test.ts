import { describe, expect, it } from 'vitest';
import { chunkMarkdown } from '../../worker/chunking/chunk-markdown.js';
import { cutContextOf } from '../../worker/chunking/cut-chunks.js';
import { cutStoredMarkdown } from '../../worker/chunking/cut-request.js';
import { plainTextHeadings } from '../../worker/chunking/plain-headings.js';
import { extractText } from '../../worker/extractors/index.js';

const para = (topic: string, n = 3) =>
  Array.from({ length: n }, (_, i) => `The ${topic} rule number ${i + 1} is stated here in words that run on for a full line.`).join(' ');
const titles = (text: string) => plainTextHeadings(text).map((h) => [h.level, h.text]);

const RFC = `Network Working Group                                   R. Fielding

1 Introduction

1.1 Purpose

   ${para('purpose')}

1.2 Requirements

   ${para('requirement')}

2 Notational Conventions and Generic Grammar

2.1 Augmented BNF

   ${para('grammar')}
`;

describe('plainTextHeadings', () => {
  it('reads RFC-style numbered sections, their level the depth of the number', () => {
    expect(titles(RFC)).toEqual([
      [1, '1 Introduction'],
      [2, '1.1 Purpose'],
      [2, '1.2 Requirements'],
      [1, '2 Notational Conventions and Generic Grammar'],
      [2, '2.1 Augmented BNF'],
    ]);
  });

  it('reads underlined titles (setext, info), a level per underline character in the order met', () => {
    const info = `File: grep.info,  Node: Invoking,  Next: Usage\n\n2 Invoking grep\n***************\n\n${para('invoking')}\n\n2.1 Command-line Options\n========================\n\n${para('option')}\n\n2.1.1 Generic Program Information\n---------------------------------\n\n${para('info')}\n`;
    expect(titles(info)).toEqual([
      [1, '2 Invoking grep'],
      [2, '2.1 Command-line Options'],
      [3, '2.1.1 Generic Program Information'],
    ]);
  });

  it('reads a manual page: capitals over an indented body, subsections three columns in', () => {
    const man = `LS(1)                     User Commands                    LS(1)\n\nNAME\n       ls - list directory contents\n\nDESCRIPTION\n       ${para('listing')}\n\n   Exit status\n       0      if OK,\n\nSEE ALSO\n       Full documentation online\n`;
    expect(titles(man)).toEqual([
      [1, 'NAME'],
      [1, 'DESCRIPTION'],
      [2, 'Exit status'],
      [1, 'SEE ALSO'],
    ]);
  });

  it('finds nothing in prose, lists, tables of contents, tables, indented or fenced blocks', () => {
    const text = [
      'Table of Contents',
      '',
      '1. Purpose and Goals',
      '2. Overview of the Protocol',
      '3. Data Types',
      '',
      para('prose'),
      '',
      '1. Open the lid',
      '',
      '2. Pour the water',
      '',
      'Name      Size',
      '----      ----',
      'a.txt     12',
      '',
      '    3.1 Indented Title',
      '',
      '    Indented code.',
      '',
      '```',
      'CODE',
      '',
      'x = 1',
      '```',
      '',
      'A sentence that ends like one.',
      '-------------------------------',
      '',
      '| A | B |',
      '',
      'X Window System', // not a Roman numeral section
      '',
      para('closing'),
    ].join('\n');
    expect(titles(text)).toEqual([]);
  });

  it('needs body text after a heading and two numbered ones in the document', () => {
    expect(titles(`Intro.\n\n3 Pour Water\n\n${para('water')}`)).toEqual([]);
    expect(titles(`${para('a')}\n\nLAST LINE`)).toEqual([]);
  });
});

describe('chunks of a plain-text file', () => {
  it('gives a TXT file heading paths, reads no # line as a heading, and keeps its text as it is', async () => {
    const text = `${RFC}\n# not a heading, a comment\n\n   ${para('comment', 8)}\n`;
    const r = await extractText(Buffer.from(text), { filename: 'rfc.txt', maxTextChars: 1e6, maxPdfPages: 1, chunking: { maxTokens: 64, overlapTokens: 0 } });
    expect(r.format).toBe('txt');
    expect(r.markdown).toBe(text.trim());
    const grammar = r.chunks!.find((c) => c.text.includes('grammar rule number 1'))!;
    expect(grammar.headings).toEqual(['2 Notational Conventions and Generic Grammar', '2.1 Augmented BNF']);
    const comment = r.chunks!.filter((c) => c.text.includes('comment rule'));
    for (const c of comment) expect(c.headings).toEqual(['2 Notational Conventions and Generic Grammar', '2.1 Augmented BNF']);
    expect(r.chunks!.find((c) => c.text.includes('purpose rule'))!.headings).toEqual(['1 Introduction', '1.1 Purpose']);
  });

  it('cuts a stored TXT the same way again (a re-chunk), and a text source as Markdown', () => {
    const settings = { maxTokens: 64, overlapTokens: 0 };
    const first = chunkMarkdown(RFC.trim(), { ...settings, plainText: true });
    const context = cutContextOf({ type: 'file', mimeType: 'text/plain' });
    expect(context.plainText).toBe(true);
    const again = cutStoredMarkdown(Buffer.from(RFC.trim()), { chunking: settings, cutOnly: context, maxTextChars: 1e6, maxPdfPages: 1 }).chunks;
    expect(again).toEqual(first);
    expect(first.some((c) => c.headings.length === 2)).toBe(true);
    expect(cutContextOf({ type: 'text', mimeType: 'text/plain' }).plainText).toBeUndefined();
    expect(cutContextOf({ type: 'file', mimeType: 'text/markdown' }).plainText).toBeUndefined();
  });
});

describe('plainTextHeadings, bounded', () => {
  it('reads a manual page of 200,000 subsections without running out of stack', () => {
    const subs = Array.from({ length: 200_000 }, (_, i) => `   Part ${i}\n       Body of part ${i}.\n`).join('\n');
    const text = `NAME\n       big - a big page\n\nDESCRIPTION\n       A page.\n\n${subs}\nSEE ALSO\n       nothing\n`;
    const found = plainTextHeadings(text);
    expect(found.length).toBe(200_003);
    expect(found.at(-2)).toMatchObject({ level: 2, text: 'Part 199999' });
  });
});
