import { FORMAT_MIME } from '../../shared/formats/formats.js';
import type { ChunkSettings } from '../../shared/chunking/chunk-settings.js';
import { toStoredChunks, type StoredChunk } from '../../shared/schemas/chunk.js';
import type { StoredSource } from '../../shared/store/kb-records.js';
import type { Extraction } from '../extractors/types.js';
import type { ExtractHints } from '../sandbox/sandbox-pool.js';
import { chunkMarkdown } from './chunk-markdown.js';

/** What a source tells the cut of its Markdown besides the settings. */
export interface CutContext {
  /** PDF: where each page begins in the Markdown (see `Extraction.pageStarts`). */
  pageStarts?: readonly number[];
  /** The root of every heading path (see `ChunkMarkdownOptions.title`). */
  title?: string;
  /** A plain-text file's or page's text: headings found as plain text (see `ChunkMarkdownOptions.plainText`). */
  plainText?: boolean;
}

/**
 * The context a stored source's Markdown is cut in, the same for its first
 * run and every re-chunk: its pages, and for a text source its title as the
 * root of the heading paths. A file's or a page's title is not added: it may
 * be only the file name or host (nothing records which), a metadata title
 * is often a generator's leftover, and an HTML `<title>` is already the
 * first heading of a page's Markdown (see `html/title-root.ts`). A file or
 * page whose recorded type is `text/plain` has its headings found as plain
 * text's, as its first cut did.
 */
export function cutContextOf(source: Pick<StoredSource, 'type' | 'title' | 'pageStarts' | 'mimeType'>): CutContext {
  return {
    ...(source.pageStarts ? { pageStarts: source.pageStarts } : {}),
    ...(source.type === 'text' && source.title ? { title: source.title } : {}),
    // A text source is read as Markdown; a file or page extracted as TXT is plain text.
    ...(source.type !== 'text' && source.mimeType === FORMAT_MIME.txt ? { plainText: true } : {}),
  };
}

/**
 * Cuts Markdown into chunks as stored (with byte offsets), in this process:
 * for a text source, at most 1 MiB (a few seconds at worst). Longer stored
 * Markdown goes through {@link cutChunksInSandbox}.
 */
export function cutChunks(markdown: string, settings: ChunkSettings, context: CutContext = {}): StoredChunk[] {
  const chunks = chunkMarkdown(markdown, { maxTokens: settings.maxTokens, overlapTokens: settings.overlapTokens, ...context });
  return toStoredChunks(markdown, chunks);
}

/** The one outside effect a re-chunk needs: an extraction in the sandbox (see IngestDeps.extract). */
export type SandboxExtract = (bytes: Uint8Array, hints: ExtractHints) => Promise<Extraction>;

/**
 * {@link cutChunks} in a sandbox child, for Markdown of any size: the cut
 * of a long document would hold the worker's event loop for seconds.
 */
export async function cutChunksInSandbox(extract: SandboxExtract, markdown: string, settings: ChunkSettings, context: CutContext = {}): Promise<StoredChunk[]> {
  const result = await extract(Buffer.from(markdown, 'utf8'), { chunking: settings, cutOnly: context });
  return toStoredChunks(markdown, result.chunks ?? []);
}
