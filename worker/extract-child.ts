/**
 * Entry point of a sandbox child (see sandbox-pool.ts): in a warm pool it
 * loads type detection and the tokenizer first (`argv[3]` is `warm`), then
 * says it is ready, then extracts one request at a time for as long as the
 * pool keeps it; a format's parser is loaded by its first request. Whatever
 * a hostile file does to this process (heap exhaustion, a parser stuck in a
 * loop) stays here: the pool kills it and
 * starts another. The extractors keep no document data at module level, so
 * nothing of one request is left for the next.
 */
import type { SourceFormat } from '../shared/formats.js';
import { extractText, loadExtractors } from './extractors/index.js';
import { serveRequests } from './sandbox-protocol.js';

// tsx turns source maps on; Node would then parse pdf.js's multi-megabyte maps in every child.
process.setSourceMapsEnabled(false);

// A warm pool's child loads what every request needs before its first one (the tokenizer's
// ranks take up to ~500 ms). Parsers are loaded per format, on first use, and kept: a child
// that only ever reads PDFs does not hold mammoth, cheerio and the spreadsheet readers as
// well (loading them all raised a PDF child's peak RSS by tens of MB). A one-off child
// serves one request and loads only what that request needs (not the tokenizer's ranks
// unless it chunks).
const warm = process.argv[3] === 'warm';
if (warm) {
  await Promise.all([import('../shared/detect-type.js'), import('./chunking/chunk-markdown.js')]);
}

serveRequests(async ({ bytes, opts, pdfRange }) => {
  if (pdfRange) return { pages: await (await import('./extractors/pdf/index.js')).readPdfRange(bytes, pdfRange, opts.maxTextChars) };
  if (opts.cutOnly) return { extraction: (await import('./chunking/cut-request.js')).cutStoredMarkdown(bytes, opts) };
  return { extraction: await extractText(bytes, opts) };
});

// Once ready, a warm child that is still idle loads the parsers a knowledge base sees most
// (PDF: pdf.js takes ~100 ms of CPU to load, HTML and Markdown half that together), so a
// first document of these formats does not pay for it inside its job. It is done after
// `ready`, so the pool never waits for it; a request that arrives meanwhile shares the
// import under way. Compiled children only: under tsx (tests, development) compiling
// parsers a child may never use would cost more than it saves.
const PRELOADED: readonly SourceFormat[] = ['pdf', 'html', 'markdown'];
if (warm && import.meta.url.endsWith('.js')) setTimeout(() => void loadExtractors(PRELOADED).catch(() => undefined), 0);
