import type { ChunkSettings } from '../../shared/chunking/chunk-settings.js';
import { toStoredChunks, type StoredChunk } from '../../shared/schemas/chunk.js';
import type { Extraction } from '../extractors/types.js';
import type { ExtractHints } from '../sandbox-pool.js';
import { chunkMarkdown } from './chunk-markdown.js';

/**
 * Cuts Markdown into chunks as stored (with byte offsets), in this process:
 * for a text source, at most 1 MiB (a few seconds at worst). Longer stored
 * Markdown goes through {@link cutChunksInSandbox}.
 */
export function cutChunks(markdown: string, settings: ChunkSettings, pageStarts?: readonly number[]): StoredChunk[] {
  const chunks = chunkMarkdown(markdown, { maxTokens: settings.maxTokens, overlapTokens: settings.overlapTokens, ...(pageStarts ? { pageStarts } : {}) });
  return toStoredChunks(markdown, chunks);
}

/** The one outside effect a re-chunk needs: an extraction in the sandbox (see IngestDeps.extract). */
export type SandboxExtract = (bytes: Uint8Array, hints: ExtractHints) => Promise<Extraction>;

/**
 * {@link cutChunks} in a sandbox child, for Markdown of any size: the cut
 * of a long document would hold the worker's event loop for seconds.
 */
export async function cutChunksInSandbox(extract: SandboxExtract, markdown: string, settings: ChunkSettings, pageStarts?: number[]): Promise<StoredChunk[]> {
  const result = await extract(Buffer.from(markdown, 'utf8'), { chunking: settings, cutOnly: pageStarts ? { pageStarts } : {} });
  return toStoredChunks(markdown, result.chunks ?? []);
}
