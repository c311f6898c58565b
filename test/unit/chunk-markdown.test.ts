import { describe, expect, it } from 'vitest';
import type { CutChunk as Chunk } from '../../shared/schemas/chunk.js';
import { chunkMarkdown } from '../../worker/chunking/chunk-markdown.js';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { countTokens } from '../../worker/chunking/tokenizer.js';
import { extractText } from '../../worker/extractors/index.js';
import { buildPdf } from '../fixtures/pdf.js';

const sentence = (n: number) => `Sentence number ${n} says something plain about the topic at hand.`;
const paragraph = (from: number, count: number) => Array.from({ length: count }, (_, i) => sentence(from + i)).join(' ');

/** Every chunk is its slice of the Markdown, within the limit, and together they hold every non-blank character. */
function expectWellFormed(md: string, chunks: Chunk[], max: number): void {
  let previousEnd = 0;
  chunks.forEach((c, i) => {
    expect(c.index).toBe(i);
    expect(md.slice(c.charStart, c.charEnd)).toBe(c.text);
    expect(c.tokens).toBe(countTokens(c.text));
    expect(c.tokens).toBeLessThanOrEqual(max);
    expect(md.slice(previousEnd, Math.max(previousEnd, c.charStart)).trim()).toBe('');
    previousEnd = c.charEnd;
  });
  expect(md.slice(previousEnd).trim()).toBe('');
}

describe('chunkMarkdown', () => {
  it('keeps a short document in one chunk with its heading path', () => {
    const md = '# Guide\n\n## Setup\n\nInstall it.';
    expect(chunkMarkdown(md, { maxTokens: 512 })).toEqual([
      { index: 0, text: md, charStart: 0, charEnd: md.length, tokens: countTokens(md), headings: ['Guide'], sections: [['Guide'], ['Guide', 'Setup']] },
    ]);
  });

  it('starts every section in a chunk of its own once the chunk before holds a quarter of the limit', () => {
    const parts = Array.from({ length: 8 }, (_, i) => `## 21.${i + 1} Part ${i + 1}\n\n${paragraph(i * 10, 2)}`);
    const md = `# Manual\n\n${parts.join('\n\n')}`;
    // Two sections would fit one chunk: the cut at each heading is a choice, not a lack of room.
    expect(countTokens(parts.slice(0, 2).join('\n\n'))).toBeLessThan(100);
    const chunks = chunkMarkdown(md, { maxTokens: 100 });
    expectWellFormed(md, chunks, 100);
    for (const [i, c] of chunks.slice(1).entries()) {
      expect(c.text.startsWith(`## 21.${i + 2} `)).toBe(true);
      expect(c.text.match(/^## /gm)).toHaveLength(1);
      expect(c.headings).toEqual(['Manual', `21.${i + 2} Part ${i + 2}`]);
      expect(c.sections).toBeUndefined();
    }
  });

  it('merges tiny sections and names every heading path the chunk covers', () => {
    const md = `# Options\n\n${Array.from({ length: 12 }, (_, i) => `### -${String.fromCharCode(97 + i)}\n\nFlag ${i}.`).join('\n\n')}\n\n## Exit status\n\n${paragraph(1, 4)}`;
    const chunks = chunkMarkdown(md, { maxTokens: 64 });
    expectWellFormed(md, chunks, 64);
    expect(chunks.length).toBeLessThan(12);
    const expected = (c: Chunk) => {
      const paths = [c.headings];
      for (const m of c.text.matchAll(/^(#+) (.*)$/gm)) {
        const path = m[1]!.length === 1 ? ['Options'] : m[1]!.length === 2 ? ['Options', m[2]!] : ['Options', m[2]!];
        if (m.index !== 0) paths.push(path);
      }
      return paths.length > 1 ? paths : undefined;
    };
    for (const c of chunks) expect(c.sections).toEqual(expected(c));
    expect(chunks.some((c) => (c.sections?.length ?? 0) >= 3)).toBe(true);
    // Every section's path is named by the chunks that hold its text.
    const named = chunks.flatMap((c) => c.sections ?? [c.headings]).map((p) => p.join(' > '));
    for (let i = 0; i < 12; i++) expect(named).toContain(`Options > -${String.fromCharCode(97 + i)}`);
    expect(named).toContain('Options > Exit status');
  });

  it('starts a chunk at the heading of a section that does not fit, with the heading path in force', () => {
    const md = `# Guide\n\n${paragraph(1, 3)}\n\n## Setup\n\n${paragraph(10, 6)}\n\n### Linux\n\n${paragraph(20, 6)}\n\n## Usage\n\n${paragraph(30, 3)}`;
    const chunks = chunkMarkdown(md, { maxTokens: 100 });
    expectWellFormed(md, chunks, 100);
    const starts = chunks.map((c) => c.text.split('\n')[0]);
    expect(starts).toContain('## Setup');
    expect(starts).toContain('### Linux');
    expect(chunks.find((c) => c.text.startsWith('### Linux'))?.headings).toEqual(['Guide', 'Setup', 'Linux']);
    expect(chunks.find((c) => c.text.startsWith('## Usage'))?.headings).toEqual(['Guide', 'Usage']);
    // No chunk ends on a heading line.
    for (const c of chunks) expect(c.text.split('\n').at(-1)).not.toMatch(/^#{1,6} /);
  });

  it('cuts a long paragraph between sentences, never inside a word', () => {
    const md = paragraph(1, 40);
    const chunks = chunkMarkdown(md, { maxTokens: 64 });
    expectWellFormed(md, chunks, 64);
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      expect(c.text).toMatch(/^Sentence number \d+/);
      expect(c.text).toMatch(/hand\.$/);
    }
  });

  it('cuts tables and code blocks between rows and lines only', () => {
    const rows = Array.from({ length: 60 }, (_, i) => `| row ${i} | value ${i * 7} | note ${i} |`).join('\n');
    const code = Array.from({ length: 60 }, (_, i) => `  const value${i} = compute(${i}); // line ${i}`).join('\n');
    const md = `| a | b | c |\n| --- | --- | --- |\n${rows}\n\n\`\`\`ts\n${code}\n\`\`\``;
    const chunks = chunkMarkdown(md, { maxTokens: 80 });
    expectWellFormed(md, chunks, 80);
    const lines = new Set(md.split('\n'));
    for (const c of chunks) for (const line of c.text.split('\n')) expect(lines.has(line), line).toBe(true);
  });

  it('falls back to whole words for a sentence longer than the limit, and to pieces for a longer word', () => {
    const words = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    const blob = 'x'.repeat(3000);
    const md = `${words}\n\n${blob}`;
    const chunks = chunkMarkdown(md, { maxTokens: 32 });
    expectWellFormed(md, chunks, 32);
    for (const c of chunks.filter((c) => c.charEnd <= words.length)) expect(c.text).toMatch(/^word\d+( word\d+)*$/);
  });

  it('repeats the tail of the previous chunk, in whole sentences, when overlap is asked for', () => {
    const md = paragraph(1, 30);
    const plain = chunkMarkdown(md, { maxTokens: 80 });
    const overlapped = chunkMarkdown(md, { maxTokens: 80, overlapTokens: 20 });
    expect(overlapped.length).toBeGreaterThanOrEqual(plain.length);
    expect(overlapped[0]!.charStart).toBe(0);
    for (const [i, c] of overlapped.entries()) {
      expect(c.tokens).toBeLessThanOrEqual(80);
      expect(md.slice(c.charStart, c.charEnd)).toBe(c.text);
      if (i === 0) continue;
      const previous = overlapped[i - 1]!;
      expect(c.charStart).toBeLessThan(previous.charEnd);
      expect(c.text).toMatch(/^Sentence number \d+/);
      expect(countTokens(md.slice(c.charStart, previous.charEnd))).toBeLessThanOrEqual(20);
    }
  });

  it('gives PDF chunks the 1-based pages they start and end on', async () => {
    // One sentence a line: the fixture writes each line once, without wrapping.
    const page = (from: number) => Array.from({ length: 6 }, (_, i) => sentence(from + i)).join('\n');
    const pages = [page(1), page(10), page(20)];
    // A page's lines join into one paragraph, so a chunk smaller than a page makes the pages matter.
    const r = await extractText(buildPdf({ pages }), { maxTextChars: 100_000, maxPdfPages: 10, chunking: { maxTokens: 40, overlapTokens: 0 } });
    expect(r.chunks?.length).toBeGreaterThan(3);
    expectWellFormed(r.markdown, r.chunks!, 40);
    expect(r.chunks![0]).toMatchObject({ pageStart: 1 });
    expect(r.chunks!.at(-1)).toMatchObject({ pageEnd: 3 });
    for (const c of r.chunks!) {
      expect(c.pageStart).toBeLessThanOrEqual(c.pageEnd!);
      expect(r.markdown.slice(r.pageStarts![c.pageStart! - 1], r.pageStarts![c.pageStart!] ?? r.markdown.length)).toContain(c.text.slice(0, 20));
    }
  });

  it('chunks 50,000 characters without a break (one letter, brackets, a base64 blob) in seconds, each chunk within the limit', () => {
    const blob = Buffer.from(Array.from({ length: 37_500 }, (_, i) => (i * 7919) % 251)).toString('base64');
    for (const md of ['a'.repeat(50_000), '['.repeat(50_000), `Before the blob.\n\n${blob}\n\nAfter the blob.`]) {
      const started = performance.now();
      const chunks = chunkMarkdown(md, { maxTokens: 512 });
      // A liveness bound: counting such a run in one piece took minutes.
      expect(performance.now() - started).toBeLessThan(30_000);
      expectWellFormed(md, chunks, 512);
    }
  });

  it('counts tokens exactly for ordinary text, and never fewer than the exact count for a long run', () => {
    const exact = new Tiktoken(cl100k);
    const prose = paragraph(1, 40);
    expect(countTokens(prose)).toBe(exact.encode(prose, [], []).length);
    // Counted pre-token by pre-token and remembered: the sum must equal the encoder's count on text whose
    // pre-tokens depend on what follows them (spaces before a word, contractions, digit groups, CJK, line ends).
    const mixed = "It's   here:\n\n  indented\tcode 1234567 don't\r\n日本語のテキスト、句読点。 <index> --- ***\n\n\n  end  ";
    for (const text of [mixed, mixed.repeat(3), `${prose}\n${mixed}`]) expect(countTokens(text)).toBe(exact.encode(text, [], []).length);
    for (const run of ['a'.repeat(300), '-'.repeat(700), 'ACGT'.repeat(100), `word ${'x'.repeat(257)} word`]) {
      expect(countTokens(run)).toBeGreaterThanOrEqual(exact.encode(run, [], []).length);
    }
  });

  it('computes no chunks unless asked, and refuses a limit below 16 tokens', async () => {
    const bytes = new Uint8Array(Buffer.from('Plain words.'));
    expect((await extractText(bytes, { maxTextChars: 1000, maxPdfPages: 1, filename: 'a.txt' })).chunks).toBeUndefined();
    expect((await extractText(bytes, { maxTextChars: 1000, maxPdfPages: 1, filename: 'a.txt', chunking: { maxTokens: 512, overlapTokens: 0 } })).chunks).toHaveLength(1);
    expect(() => chunkMarkdown('text', { maxTokens: 8 })).toThrow(RangeError);
  });
});

describe('sections, bounded', () => {
  it('lists at most 32 paths and 8,192 characters of heading text in a chunk', () => {
    const many = `# Index\n\n${Array.from({ length: 80 }, (_, i) => `## ${i}\n\nx`).join('\n\n')}`;
    // A quarter of 2,048 tokens holds all 80 tiny sections: the list stops at 32.
    for (const c of chunkMarkdown(many, { maxTokens: 2048 })) expect(c.sections?.length ?? 1).toBeLessThanOrEqual(32);
    expect(chunkMarkdown(many, { maxTokens: 2048 })[0]!.sections).toHaveLength(32);
    const long = `# ${'Long title words '.repeat(120)}\n\n${Array.from({ length: 40 }, (_, i) => `## ${i}\n\nx`).join('\n\n')}`;
    for (const c of chunkMarkdown(long, { maxTokens: 1024 })) {
      const chars = (c.sections ?? []).flat().reduce((n, t) => n + t.length, 0);
      expect(chars).toBeLessThanOrEqual(8192);
    }
    expect(chunkMarkdown(long, { maxTokens: 1024 })[0]!.sections!.length).toBeGreaterThan(1);
  });
});

describe('a long heading over small sections', () => {
  it('is not a chunk of its own: it goes with the sections under it', () => {
    const md = `# ${'Long title words '.repeat(40)}\n\n${Array.from({ length: 6 }, (_, i) => `## Part ${i}\n\n${paragraph(i * 5, 2)}`).join('\n\n')}`;
    const chunks = chunkMarkdown(md, { maxTokens: 256 });
    expectWellFormed(md, chunks, 256);
    expect(chunks[0]!.text).toContain('## Part 0');
  });
});
