import { z } from 'zod';
import { occurrences } from '../chunking/chunk-id.js';
import { pageSchema } from './common.js';
import { metadataSchema } from './metadata.js';

/** One retrievable piece of a document's Markdown, as the API shows it. */
export const chunkSchema = z
  .object({
    id: z.string().meta({
      description: 'Stable id from the knowledge base, the source and the text: an unchanged chunk keeps it across refresh, re-extraction and re-chunking',
      example: 'chk_2bF1x0cXlq3m9k0aQ4uR7w',
    }),
    documentId: z.string(),
    index: z.number().int().meta({ description: 'Position in the document, from 0' }),
    text: z.string().meta({ description: 'Exactly `markdown.slice(charStart, charEnd)` (JavaScript string indices)' }),
    charStart: z.number().int(),
    charEnd: z.number().int(),
    tokens: z.number().int().meta({ description: 'cl100k_base tokens in `text`; never more than the chunkMaxTokens of its knowledge base' }),
    headings: z.array(z.string()).meta({ description: "The heading path in force where the chunk starts, outermost first; a text source's title heads it unless the text opens with it" }),
    sections: z
      .array(z.array(z.string()))
      .optional()
      .meta({
        description:
          'When the chunk\'s text spans more than one section (small sections merged): every heading path it covers, in order, the first being `headings` (at most 32 paths and 8,192 characters of heading text; past them the list stops). Absent when the whole text is under `headings`',
        example: [['Guide', 'Install'], ['Guide', 'Upgrade']],
      }),
    prefix: z.string().optional().meta({
      description:
        'When the chunk starts inside a fenced code block or a table cut at the previous chunk: the opening fence line, or the header and delimiter rows, ending in a line break. `prefix + text` reads on its own and is within chunkMaxTokens; `text` stays the exact slice',
      example: '| Name | Price |\n| --- | --- |\n',
    }),
    pageStart: z.number().int().optional().meta({ description: 'PDF: 1-based page the chunk starts on' }),
    pageEnd: z.number().int().optional().meta({ description: 'PDF: 1-based page the chunk ends on' }),
    title: z.string().optional().meta({ description: "The source's title" }),
    url: z.string().optional().meta({ description: 'URL sources: the URL' }),
    filename: z.string().optional().meta({ description: 'File sources: the file name' }),
    metadata: metadataSchema.optional().meta({ description: "The source's metadata" }),
  })
  .meta({ id: 'Chunk' });
export type Chunk = z.infer<typeof chunkSchema>;

/** A chunk as the chunker makes it, before it is tied to a source. */
export type CutChunk = Omit<Chunk, 'id' | 'documentId' | 'title' | 'url' | 'filename' | 'metadata'>;

export const chunkPageSchema = pageSchema(chunkSchema, 'ChunkPage');

/** A chunk as stored: its place in the Markdown in UTF-8 bytes too, so a page reads only its own bytes. */
export interface StoredChunk extends Omit<CutChunk, 'text'> {
  byteStart: number;
  byteEnd: number;
  /** How many chunks of the source with the same text come before this one (see chunkId); absent for 0. */
  occurrence?: number;
}

/** Adds UTF-8 byte offsets to chunks of `markdown`, in one pass over the text. */
export function toStoredChunks(markdown: string, chunks: CutChunk[]): StoredChunk[] {
  const out: StoredChunk[] = [];
  let char = 0;
  let byte = 0;
  // Moves the cursor to `to`, forwards or (overlapping chunks start before the previous end) backwards.
  const advance = (to: number): number => {
    if (to >= char) byte += Buffer.byteLength(markdown.slice(char, to), 'utf8');
    else byte -= Buffer.byteLength(markdown.slice(to, char), 'utf8');
    char = to;
    return byte;
  };
  const repeats = occurrences(chunks.map((c) => c.text));
  chunks.forEach((c, i) => {
    const byteStart = advance(c.charStart);
    const byteEnd = advance(c.charEnd);
    const { text: _text, ...rest } = c;
    out.push({ ...rest, byteStart, byteEnd, ...(repeats[i]! > 0 ? { occurrence: repeats[i] } : {}) });
  });
  return out;
}
