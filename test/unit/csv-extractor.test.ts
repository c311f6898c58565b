import { describe, expect, it } from 'vitest';
import { extractCsv } from '../../worker/extractors/csv/csv.js';
import { extractText } from '../../worker/extractors/index.js';

const OPTS = { maxTextChars: 5_000_000, maxPdfPages: 10, acceptedFormats: ['txt', 'csv'] as const };
const csv = (text: string, filename = 'data.csv') => extractText(Buffer.from(text, 'utf8'), { ...OPTS, filename });

describe('CSV and TSV', () => {
  it('writes a comma-separated file as a GFM table with its header row', async () => {
    const r = await csv('name,age,city\nAda,36,London\nAlan,41,"Wilmslow, Cheshire"\n');
    expect(r.format).toBe('csv');
    expect(r.markdown).toBe('| name | age | city |\n| --- | --- | --- |\n| Ada | 36 | London |\n| Alan | 41 | Wilmslow, Cheshire |');
  });

  it('guesses tab and semicolon delimiters, and leaves the header empty when the first row is data', async () => {
    expect((await csv('AD\t+4230+00131\tEurope/Andorra\nAE\t+2518+05518\tAsia/Dubai\n', 'zone.tsv')).markdown)
      .toBe('|  |  |  |\n| --- | --- | --- |\n| AD | +4230+00131 | Europe/Andorra |\n| AE | +2518+05518 | Asia/Dubai |');
    expect((await csv('Land;Hauptstadt\nÖsterreich;Wien\nSchweiz;Bern\n')).markdown).toContain('| Österreich | Wien |');
  });

  it('does not take # comment lines for rows, even when they hold commas', async () => {
    const r = await csv('# tzdb, deprecated\n# code, coordinates, zone\nAD\t+4230+00131\tEurope/Andorra\nAE\t+2518+05518\tAsia/Dubai\tcomment\n', 'zone.tsv');
    expect(r.markdown).not.toContain('tzdb');
    expect(r.markdown.split('\n')).toHaveLength(4);
    expect(r.markdown).toContain('| AE | +2518+05518 | Asia/Dubai | comment |');
  });

  it('keeps short rows as rows with empty trailing cells', async () => {
    const r = await csv('version,codename,release,eol,eol-esm\n4.10,Warty Warthog,2004-10-20\n6.06 LTS,Dapper Drake,2006-06-01,2009-07-14,2011-06-01\n');
    expect(r.markdown).toContain('| 4.10 | Warty Warthog | 2004-10-20 |  |  |');
  });

  it('leaves a .csv that is really prose as text', async () => {
    const prose = 'Call me Ishmael. Some years ago, never mind how long precisely, having little or no money in my purse,\n'
      + 'and nothing particular to interest me on shore, I thought I would sail about a little and see the watery part of the world.\n'
      + 'It is a way I have of driving off the spleen and regulating the circulation.\n';
    const r = await csv(prose);
    expect(r.markdown).toBe(prose.trim());
    expect(r.markdown).not.toContain('|');
  });

  it('escapes bars and keeps line breaks inside quoted cells', async () => {
    const r = await csv('a,b\n"x|y","line one\nline two"\n');
    expect(r.markdown).toContain('| x\\|y | line one<br>line two |');
  });

  it('reads a Latin-1 file', async () => {
    const r = await extractText(Buffer.from('nom;ville\nRené;Besançon\nZoë;Orléans\n', 'latin1'), { ...OPTS, filename: 'a.csv' });
    expect(r.markdown).toContain('| René | Besançon |');
  });

  it('cuts a table past the row and column caps and marks it partial_text', async () => {
    const rows = Array.from({ length: 50 }, (_, i) => Array.from({ length: 8 }, (_, j) => `r${i}c${j}`).join(','));
    const r = await extractCsv(Buffer.from(rows.join('\n')), { maxRows: 10, maxColumns: 5, maxCells: 1000 });
    expect(r.truncated).toBe(true);
    expect(r.warnings?.[0]?.code).toBe('partial_text');
    // An empty header (the first row is data like the rest), the rule, ten rows.
    expect(r.markdown?.split('\n')).toHaveLength(12);
    expect(r.markdown).not.toContain('c5');
  });

  it('stays plain text under the default policy', async () => {
    const r = await extractText(Buffer.from('name,age\nAda,36\n'), { maxTextChars: 1000, maxPdfPages: 1, filename: 'a.csv' });
    expect(r).toMatchObject({ format: 'txt', markdown: 'name,age\nAda,36' });
  });
});
