import { z } from 'zod';
import { pageSchema } from './common.js';

/** One retrievable piece of a document's Markdown, as the API shows it. */
export const chunkSchema = z
  .object({
    index: z.number().int().meta({ description: 'Position in the document, from 0' }),
    text: z.string().meta({ description: 'Exactly `markdown.slice(charStart, charEnd)` (JavaScript string indices)' }),
    charStart: z.number().int(),
    charEnd: z.number().int(),
    tokens: z.number().int().meta({ description: 'cl100k_base tokens in `text`; never more than the chunkMaxTokens of its knowledge base' }),
    headings: z.array(z.string()).meta({ description: 'The heading path in force where the chunk starts, outermost first' }),
    pageStart: z.number().int().optional().meta({ description: 'PDF: 1-based page the chunk starts on' }),
    pageEnd: z.number().int().optional().meta({ description: 'PDF: 1-based page the chunk ends on' }),
  })
  .meta({ id: 'Chunk' });
export type Chunk = z.infer<typeof chunkSchema>;

export const chunkPageSchema = pageSchema(chunkSchema, 'ChunkPage');

/** A chunk as stored: its place in the Markdown in UTF-8 bytes too, so a page reads only its own bytes. */
export interface StoredChunk extends Omit<Chunk, 'text'> {
  byteStart: number;
  byteEnd: number;
}

/** Adds UTF-8 byte offsets to chunks of `markdown`, in one pass over the text. */
export function toStoredChunks(markdown: string, chunks: Chunk[]): StoredChunk[] {
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
  for (const c of chunks) {
    const byteStart = advance(c.charStart);
    const byteEnd = advance(c.charEnd);
    const { text: _text, ...rest } = c;
    out.push({ ...rest, byteStart, byteEnd });
  }
  return out;
}
