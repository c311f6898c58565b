/**
 * Entry point of a sandbox child (see sandbox-pool.ts): loads every parser,
 * says it is ready, then extracts one request at a time for as long as the
 * pool keeps it. Whatever a hostile file does to this process (heap
 * exhaustion, a parser stuck in a loop) stays here: the pool kills it and
 * starts another. The extractors keep no document data at module level, so
 * nothing of one request is left for the next.
 */
import { extractText } from './extractors/index.js';
import { serveRequests } from './sandbox-protocol.js';

// tsx turns source maps on; Node would then parse pdf.js's multi-megabyte maps in every child.
process.setSourceMapsEnabled(false);

// Loaded before the first request, so no job pays for module loading (pdf.js alone takes ~360 ms).
// extractText imports the same modules on demand and gets these from the module cache.
await Promise.all([
  import('./extractors/pdf.js'),
  import('./extractors/docx.js'),
  import('./extractors/html.js'),
  import('./extractors/markdown.js'),
  import('./extractors/txt.js'),
  import('../shared/detect-type.js'),
]);

serveRequests(({ bytes, opts }) => extractText(bytes, opts));
