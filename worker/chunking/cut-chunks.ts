import type { ChunkSettings } from '../../shared/chunking/chunk-settings.js';
import { toStoredChunks, type StoredChunk } from '../../shared/schemas/chunk.js';
import { chunkMarkdown } from './chunk-markdown.js';

/**
 * Cuts stored Markdown into chunks as stored (with byte offsets), in this
 * process. For Markdown already extracted (a text source, a re-chunk, a
 * reused extraction): chunking is our own pure code over at most
 * MAX_TEXT_CHARS characters, so it needs no sandbox.
 */
export function cutChunks(markdown: string, settings: ChunkSettings, pageStarts?: readonly number[]): StoredChunk[] {
  const chunks = chunkMarkdown(markdown, { maxTokens: settings.maxTokens, overlapTokens: settings.overlapTokens, ...(pageStarts ? { pageStarts } : {}) });
  return toStoredChunks(markdown, chunks);
}
