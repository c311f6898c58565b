/**
 * Entry point of a sandbox child (see sandbox-pool.ts): in a warm pool it
 * loads every parser and the tokenizer first (`argv[3]` is `warm`), then says it is ready, then extracts one request at a time for as long as the
 * pool keeps it. Whatever a hostile file does to this process (heap
 * exhaustion, a parser stuck in a loop) stays here: the pool kills it and
 * starts another. The extractors keep no document data at module level, so
 * nothing of one request is left for the next.
 */
import { cutStoredMarkdown } from './chunking/cut-request.js';
import { extractText, loadExtractors } from './extractors/index.js';
import { serveRequests } from './sandbox-protocol.js';

// tsx turns source maps on; Node would then parse pdf.js's multi-megabyte maps in every child.
process.setSourceMapsEnabled(false);

// A warm pool's child loads everything before its first request, so no job pays for module
// loading (pdf.js alone takes ~360 ms, the tokenizer's ranks up to ~500 ms). A one-off child
// serves one request and loads only what that request needs: extractText imports on demand.
if (process.argv[3] === 'warm') {
  await Promise.all([loadExtractors(), import('../shared/detect-type.js'), import('./chunking/chunk-markdown.js')]);
}

serveRequests(async ({ bytes, opts }) => (opts.cutOnly ? cutStoredMarkdown(bytes, opts) : extractText(bytes, opts)));
