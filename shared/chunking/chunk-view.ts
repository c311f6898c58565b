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

/** The fields a chunk shows of its source (title, URL or file name, metadata). */
export function chunkSourceFields(source: Omit<ChunkSource, 'documentId'>): Pick<Chunk, 'title' | 'url' | 'filename' | 'metadata'> {
  return {
    ...(source.title ? { title: source.title } : {}),
    ...(source.type === 'url' ? { url: source.content } : {}),
    ...(source.type === 'file' ? { filename: source.filename ?? source.content } : {}),
    ...(source.metadata && Object.keys(source.metadata).length > 0 ? { metadata: source.metadata } : {}),
  };
}
