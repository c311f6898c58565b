import type { ExtractOptions, Extraction } from '../extractors/types.js';
import { chunkMarkdown } from './chunk-markdown.js';

/**
 * A sandbox request that only cuts stored Markdown into chunks (a re-chunk):
 * the bytes are the Markdown in UTF-8, returned unchanged beside its chunks.
 * It runs in a sandbox child because cutting a document of millions of
 * characters takes tens of seconds, during which the worker's own event
 * loop must keep renewing job locks.
 */
export function cutStoredMarkdown(bytes: Uint8Array, opts: ExtractOptions): Extraction {
  if (!opts.chunking) throw new Error('a cut-only request needs chunking settings');
  const markdown = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  const { pageStarts, title, plainText } = opts.cutOnly ?? {};
  return {
    markdown,
    text: '',
    chunks: chunkMarkdown(markdown, { ...opts.chunking, ...(pageStarts ? { pageStarts } : {}), ...(title ? { title } : {}), ...(plainText ? { plainText } : {}) }),
    truncated: false,
    format: 'markdown',
    mimeType: 'text/markdown',
  };
}
