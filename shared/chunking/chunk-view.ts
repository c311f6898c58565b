import type { Chunk, StoredChunk } from '../schemas/chunk.js';
import type { Metadata } from '../schemas/metadata.js';
import type { StoredSource } from '../store/kb-records.js';
import { chunkId } from './chunk-id.js';

/** A stored chunk with its text read back from the Markdown. */
export type ReadChunk = Omit<StoredChunk, 'byteStart' | 'byteEnd'> & { text: string };

/** What a chunk shows of its source: the fields every consumer of chunks needs to cite it. */
export interface ChunkSource {
  documentId: string;
  type: StoredSource['type'];
  content: string;
  title?: string;
  filename?: string;
  metadata?: Metadata;
}

/**
 * A chunk as the API shows it (listing, feed, search): its stable id, its
 * source's id, title, URL or file name, and the source's metadata.
 */
export function chunkView(kbId: string, source: ChunkSource, c: ReadChunk): Chunk {
  const { occurrence, ...rest } = c;
  return { id: chunkId(kbId, source.documentId, c.text, occurrence), documentId: source.documentId, ...rest, ...chunkSourceFields(source) };
}

/**
 * Most bytes of a source's title a chunk shows (an extracted title is not
 * otherwise bounded, and every change-feed event of the source carries it).
 * The feed's Lua (`feedSource`) cuts the same way.
 */
export const CHUNK_TITLE_MAX_BYTES = 1024;

/** A title cut to {@link CHUNK_TITLE_MAX_BYTES} UTF-8 bytes, at a character's boundary. */
export function chunkTitle(title: string): string {
  if (title.length <= CHUNK_TITLE_MAX_BYTES / 4) return title;
  const bytes = Buffer.from(title, 'utf8');
  if (bytes.length <= CHUNK_TITLE_MAX_BYTES) return title;
  let end = CHUNK_TITLE_MAX_BYTES;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/** The fields a chunk shows of its source (title, URL or file name, metadata). */
export function chunkSourceFields(source: Omit<ChunkSource, 'documentId'>): Pick<Chunk, 'title' | 'url' | 'filename' | 'metadata'> {
  return {
    ...(source.title ? { title: chunkTitle(source.title) } : {}),
    ...(source.type === 'url' ? { url: source.content } : {}),
    ...(source.type === 'file' ? { filename: source.filename ?? source.content } : {}),
    ...(source.metadata && Object.keys(source.metadata).length > 0 ? { metadata: source.metadata } : {}),
  };
}
