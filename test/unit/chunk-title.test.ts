import { describe, expect, it } from 'vitest';
import type { Config } from '../../shared/runtime/config.js';
import type { Logger } from '../../shared/runtime/logger.js';
import type { StoredChunk } from '../../shared/schemas/chunk.js';
import type { StoredSource } from '../../shared/store/kb-records.js';
import type { KbStore } from '../../shared/store/kb-store.js';
import { chunkMarkdown } from '../../worker/chunking/chunk-markdown.js';
import { cutContextOf, type SandboxExtract } from '../../worker/chunking/cut-chunks.js';
import { cutStoredMarkdown } from '../../worker/chunking/cut-request.js';
import { firstHeading } from '../../worker/chunking/segments.js';
import { ingestSource, type IngestDeps } from '../../worker/jobs/ingest-source.js';
import { rechunkKnowledgeBase } from '../../worker/jobs/rechunk-kb.js';

const para = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `The ${topic} rule number ${i} is written here in plain words.`).join(' ');

/** A text of three sections, one of them with a long code block, about 700 tokens. */
const TEXT = [
  `Opening words before any heading. ${para('opening', 4)}`,
  `# Guide\n\n${para('guide', 6)}`,
  `## Setup\n\n${para('setup', 6)}\n\n\`\`\`sh\n${Array.from({ length: 30 }, (_, i) => `install --step ${i} --verbose`).join('\n')}\n\`\`\``,
  `## Usage\n\n${para('usage', 6)}`,
].join('\n\n');

describe('a title as the root of the heading paths', () => {
  it('puts the title above every chunk of a text without headings', () => {
    const md = para('parking', 30);
    const chunks = chunkMarkdown(md, { maxTokens: 64, title: 'Clinic rules' });
    expect(chunks.length).toBeGreaterThan(4);
    for (const c of chunks) expect(c.headings).toEqual(['Clinic rules']);
    expect(chunkMarkdown(md, { maxTokens: 64 }).every((c) => c.headings.length === 0)).toBe(true);
  });

  it("nests the text's own headings, a level-1 one included, below the title", () => {
    const chunks = chunkMarkdown(TEXT, { maxTokens: 64, title: 'Handbook' });
    expect(chunks[0]!.headings).toEqual(['Handbook']);
    expect(chunks.find((c) => c.text.startsWith('# Guide'))?.headings).toEqual(['Handbook', 'Guide']);
    expect(chunks.find((c) => c.text.startsWith('## Setup'))?.headings).toEqual(['Handbook', 'Guide', 'Setup']);
    expect(chunks.find((c) => c.text.startsWith('## Usage'))?.headings).toEqual(['Handbook', 'Guide', 'Usage']);
    // A code block cut between chunks keeps its fence and its place under the title.
    const inside = chunks.filter((c) => c.text.startsWith('install --step'));
    expect(inside.length).toBeGreaterThan(1);
    for (const c of inside) {
      expect(c.prefix).toBe('```sh\n');
      expect(c.headings).toEqual(['Handbook', 'Guide', 'Setup']);
    }
  });

  it('keeps the title at the root of chunks that start in an overlap', () => {
    const chunks = chunkMarkdown(TEXT, { maxTokens: 64, overlapTokens: 16, title: 'Handbook' });
    expect(chunks.some((c, i) => i > 0 && c.charStart < chunks[i - 1]!.charEnd)).toBe(true);
    for (const c of chunks) expect(c.headings[0]).toBe('Handbook');
  });

  it.each([
    ['the first heading, in other case and spacing', '# The  Clinic\n\nWords.\n\n## Hours\n\nMore words.', '  the clinic '],
    ['a first heading of level 2', '## Opening hours\n\nWords.', 'OPENING HOURS'],
    ['the first level-1 heading, which titles the text', `## Intro\n\n${para('intro', 3)}\n\n# Guide\n\n${para('guide', 3)}`, 'guide'],
  ])('does not add a title the text already opens with: %s', (_, md, title) => {
    expect(chunkMarkdown(md, { maxTokens: 64, title })).toEqual(chunkMarkdown(md, { maxTokens: 64 }));
  });

  it('never roots a text under the title it would give itself', () => {
    for (const md of [TEXT, `## Intro\n\nWords.\n\n# Guide\n\nMore.`, 'Setext\n======\n\nWords.']) {
      const title = firstHeading(md);
      expect(title).toBeDefined();
      expect(chunkMarkdown(md, { maxTokens: 64, title })).toEqual(chunkMarkdown(md, { maxTokens: 64 }));
    }
  });

  it('changes nothing for an empty, blank or absent title', () => {
    const plain = chunkMarkdown(TEXT, { maxTokens: 64 });
    for (const title of ['', '   ', '\n\t', undefined]) expect(chunkMarkdown(TEXT, { maxTokens: 64, title })).toEqual(plain);
  });

  it("writes the title with its spacing collapsed, as the text's headings are", () => {
    expect(chunkMarkdown('Some words.', { maxTokens: 64, title: ' Clinic\n  rules ' })[0]!.headings).toEqual(['Clinic rules']);
  });
});

describe('the same chunks whichever path cuts them', () => {
  it("roots a text source's chunks by its title, and nothing else's", () => {
    expect(cutContextOf({ type: 'text', title: 'Report' })).toEqual({ title: 'Report' });
    expect(cutContextOf({ type: 'file', title: 'Report', pageStarts: [0, 40] })).toEqual({ pageStarts: [0, 40] });
    expect(cutContextOf({ type: 'url', title: 'example.org' })).toEqual({});
    expect(cutContextOf({ type: 'text', title: '' })).toEqual({});
  });

  it('gives a re-chunk in the sandbox the chunks of the first run of a text source', async () => {
    const settings = { maxTokens: 64, overlapTokens: 16 };
    const source = { documentId: 'doc_1', type: 'text', content: TEXT, title: 'Handbook', status: 'ready', run: 1, chunking: '512/0' } as unknown as StoredSource;
    const first = await ingestSource({ config: { MAX_TEXT_CHARS: 1_000_000 } as Config } as IngestDeps, 'kb_1', source, settings);
    expect(first.status).toBe('ready');
    const firstChunks = (first as { chunks: StoredChunk[] }).chunks;
    expect(firstChunks.every((c) => c.headings[0] === 'Handbook')).toBe(true);

    // The re-chunk reads the record and the stored Markdown, and cuts as the sandbox child does.
    const extract: SandboxExtract = async (bytes, hints) => cutStoredMarkdown(bytes, { ...hints, maxTextChars: 1_000_000, maxPdfPages: 1 });
    let written: StoredChunk[] | undefined;
    const kbs = {
      get: async () => ({ meta: { workspaceId: 'ws_1', chunking: settings }, sources: [source] }),
      getMarkdown: async () => first.markdown,
      rechunkSourceReport: async (args: { chunks: StoredChunk[] }) => {
        written = args.chunks;
        return { result: 'ok' };
      },
      endRechunk: async () => undefined,
    } as unknown as KbStore;
    const logger = { info: () => undefined, warn: () => undefined } as unknown as Logger;
    await rechunkKnowledgeBase({ kbs, logger, extract, chunkDefaults: { maxTokens: 512, overlapTokens: 0 } }, { workspaceId: 'ws_1', kbId: 'kb_1', ...settings });
    expect(written).toEqual(firstChunks);
  });
});
