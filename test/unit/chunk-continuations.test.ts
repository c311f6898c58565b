import { describe, expect, it } from 'vitest';
import type { CutChunk as Chunk } from '../../shared/schemas/chunk.js';
import { chunkMarkdown } from '../../worker/chunking/chunk-markdown.js';
import { firstHeading } from '../../worker/chunking/segments.js';
import { countTokens } from '../../worker/chunking/tokenizer.js';
import { extractText } from '../../worker/extractors/index.js';
import { buildXlsx } from '../fixtures/xlsx.js';

/** Exact slices within the limit, and `prefix + text` within the limit too. */
function expectSlicesWithPrefixes(md: string, chunks: Chunk[], max: number): void {
  for (const c of chunks) {
    expect(md.slice(c.charStart, c.charEnd)).toBe(c.text);
    expect(c.tokens).toBeLessThanOrEqual(max);
    expect(countTokens(`${c.prefix ?? ''}${c.text}`)).toBeLessThanOrEqual(max);
  }
}

const rows = (n: number) => Array.from({ length: n }, (_, i) => `| item ${i} | ${(i * 37) % 1000} units | shelf ${i % 9} |`);

describe('chunks that continue a code block or a table', () => {
  it('gives every part of a long table after the first its header and delimiter rows as prefix', () => {
    const header = '| Product | Stock | Place |\n| --- | --- | --- |';
    const md = `## Inventory\n\nThe stock at the end of the month.\n\n${header}\n${rows(120).join('\n')}\n\nSigned off by the manager.`;
    const chunks = chunkMarkdown(md, { maxTokens: 100 });
    expectSlicesWithPrefixes(md, chunks, 100);
    const parts = chunks.filter((c) => c.text.startsWith('| item'));
    expect(parts.length).toBeGreaterThan(3);
    for (const c of parts) {
      expect(c.prefix).toBe(`${header}\n`);
      expect(c.headings).toEqual(['Inventory']);
    }
    // The chunk holding the header itself and the text around the table need none.
    expect(chunks[0]!.prefix).toBeUndefined();
    expect(chunks.find((c) => c.text.includes('Signed off') && !c.text.startsWith('| item'))?.prefix).toBeUndefined();
    // Every row is in exactly one chunk's own text.
    const seen = chunks.flatMap((c) => c.text.split('\n').filter((l) => l.startsWith('| item')));
    expect(seen).toEqual(rows(120));
  });

  it('reopens a code block cut between chunks with its fence and info string', () => {
    const code = Array.from({ length: 80 }, (_, i) => `    total += weigh(parcel${i}, rate); // parcel ${i}`).join('\n');
    const md = `# Shipping\n\nHow the total is computed:\n\n~~~~python\n${code}\n~~~~\n\nThat is all.`;
    const chunks = chunkMarkdown(md, { maxTokens: 80 });
    expectSlicesWithPrefixes(md, chunks, 80);
    const inside = chunks.filter((c) => c.text.startsWith('    total'));
    expect(inside.length).toBeGreaterThan(3);
    for (const c of inside) expect(c.prefix).toBe('~~~~python\n');
    expect(chunks.filter((c) => c.prefix === undefined).length).toBeGreaterThan(0);
  });

  it('reopens the block where an overlap makes a chunk start, and keeps prefix and text within the limit', () => {
    const md = `Intro line.\n\n| k | v |\n| --- | --- |\n${rows(90).join('\n')}`;
    const chunks = chunkMarkdown(md, { maxTokens: 64, overlapTokens: 20 });
    expectSlicesWithPrefixes(md, chunks, 64);
    const continuing = chunks.filter((c) => c.text.startsWith('| item'));
    expect(continuing.length).toBeGreaterThan(5);
    for (const c of continuing) expect(c.prefix).toBe('| k | v |\n| --- | --- |\n');
    // A chunk whose overlap reaches back before the table holds the header itself.
    for (const c of chunks.filter((c) => c.text.includes('| k | v |'))) expect(c.prefix).toBeUndefined();
  });

  it('repeats a table header that takes up to half of the limit, and none longer', () => {
    const columns = Array.from({ length: 7 }, (_, i) => `measure ${i}`);
    const header = `| ${columns.join(' | ')} |\n|${' --- |'.repeat(7)}`;
    // Between a quarter and a half of the limit: the old quarter rule dropped it.
    expect(countTokens(`${header}\n`)).toBeGreaterThan(25);
    expect(countTokens(`${header}\n`)).toBeLessThanOrEqual(50);
    const body = Array.from({ length: 60 }, (_, i) => `| ${Array.from({ length: 7 }, (_, j) => i * 7 + j).join(' | ')} |`);
    const md = `${header}\n${body.join('\n')}`;
    const chunks = chunkMarkdown(md, { maxTokens: 100 });
    expectSlicesWithPrefixes(md, chunks, 100);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks.slice(1)) expect(c.prefix).toBe(`${header}\n`);
  });

  it('repeats no header that would take more than half of the limit', () => {
    const wide = Array.from({ length: 30 }, (_, i) => `column heading number ${i}`);
    const md = `| ${wide.join(' | ')} |\n|${' --- |'.repeat(30)}\n${rows(80).join('\n')}`;
    const chunks = chunkMarkdown(md, { maxTokens: 100 });
    expectSlicesWithPrefixes(md, chunks, 100);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.every((c) => c.prefix === undefined)).toBe(true);
  });

  it('adds nothing to a document whose tables and code fit in their chunks', () => {
    const md = `# A\n\n| k | v |\n| --- | --- |\n| 1 | 2 |\n\n\`\`\`\ncode\n\`\`\``;
    expect(chunkMarkdown(md, { maxTokens: 512 }).map((c) => c.prefix)).toEqual([undefined]);
  });
});

describe('setext headings', () => {
  it('reads a line underlined with = or - as a heading of level 1 or 2, in heading paths and titles', () => {
    const body = 'Plain words of the section go on for a while here. '.repeat(6);
    const md = `Handbook\n========\n\n${body}\n\nLeave\n-----\n\n${body}`;
    const chunks = chunkMarkdown(md, { maxTokens: 64 });
    expect(chunks[0]!.headings).toEqual(['Handbook']);
    expect(chunks.at(-1)!.headings).toEqual(['Handbook', 'Leave']);
    // A chunk never ends on the heading: it goes with the text below it.
    for (const c of chunks) expect(c.text).not.toMatch(/\n-----$|\n=====$/);
    expect(firstHeading(md)).toBe('Handbook');
    expect(firstHeading(`Intro text.\n\n## Later\n\nMore.`)).toBeUndefined();
    expect(firstHeading(`## Only a second level\n\nText.`)).toBe('Only a second level');
  });

  it('does not take a list item or a table row above a rule for a heading', () => {
    expect(firstHeading('- item\n---\n\ntext')).toBeUndefined();
    expect(firstHeading('| a |\n| --- |')).toBeUndefined();
  });
});

describe('chunks of a spreadsheet', () => {
  it('gives every chunk of a long sheet the sheet in its heading path and its table parts the header row', async () => {
    const rows = [['Region', 'Quarter', 'Revenue'], ...Array.from({ length: 300 }, (_, i) => [`Region ${i % 7}`, `Q${(i % 4) + 1}`, 1000 + i])];
    const bytes = buildXlsx([{ name: 'Summary', rows: [['Total', 42]] }, { name: 'Sales 2026', rows }]);
    const r = await extractText(bytes, { maxTextChars: 5_000_000, maxPdfPages: 10, acceptedFormats: ['xlsx'], chunking: { maxTokens: 128, overlapTokens: 0 } });
    const sales = r.chunks!.filter((c) => c.charStart >= r.markdown.indexOf('## Sales 2026'));
    expect(sales.length).toBeGreaterThan(5);
    for (const c of sales) expect(c.headings).toEqual(['Sales 2026']);
    for (const c of sales.filter((c) => c.text.startsWith('| Region '))) expect(c.prefix).toBe('## Sales 2026\n\n| Region | Quarter | Revenue |\n| --- | --- | --- |\n');
    expect(sales.filter((c) => c.prefix !== undefined).length).toBe(sales.length - 1);
    expectSlicesWithPrefixes(r.markdown, r.chunks!, 128);
  });

  it('gives every chunk of rows of a long CSV with wide column names its header row', async () => {
    const names = ['sediment depth (cm)', 'year', 'Achnanthes minutissima Kuetzing', 'Asterionella formosa Hassall', 'Tabellaria flocculosa (Roth) Kuetzing', 'Fragilaria crotonensis Kitton'];
    const lines = [names.map((n) => `"${n}"`).join(','), ...Array.from({ length: 200 }, (_, i) => [i * 10, 2000 - i, ...[1, 2, 3, 4].map((k) => ((i * 7919 * k) % 10000) / 97)].join(','))];
    const r = await extractText(Buffer.from(lines.join('\n')), { filename: 'cores.csv', maxTextChars: 5_000_000, maxPdfPages: 10, acceptedFormats: ['csv'], chunking: { maxTokens: 160, overlapTokens: 0 } });
    expect(r.format).toBe('csv');
    const header = r.markdown.split('\n').slice(0, 2).join('\n');
    expect(countTokens(header)).toBeGreaterThan(40);
    expect(r.chunks!.length).toBeGreaterThan(10);
    for (const c of r.chunks!) expect(c.index === 0 ? c.text.startsWith(header) : c.prefix === `${header}\n`).toBe(true);
    expectSlicesWithPrefixes(r.markdown, r.chunks!, 160);
  });
});
