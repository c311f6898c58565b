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
import type { SourceFormat } from '../../shared/formats/formats.js';
import { extractText, loadExtractors } from '../extractors/index.js';
import { serveRequests } from './sandbox-protocol.js';

// tsx turns source maps on; Node would then parse pdf.js's multi-megabyte maps in every child.
process.setSourceMapsEnabled(false);

// A warm pool's child loads what every request needs before its first one (the tokenizer's
// ranks, a few MB of text, and the table of them it counts with). Parsers are loaded per format, on first use, and kept: a child
// that only ever reads PDFs does not hold mammoth, cheerio and the spreadsheet readers as
// well (loading them all raised a PDF child's peak RSS by tens of MB). A one-off child
// serves one request and loads only what that request needs (not the tokenizer's ranks
// unless it chunks).
const warm = process.argv[3] === 'warm' || process.argv[3] === 'warm-up';
if (warm) {
  await Promise.all([import('../../shared/formats/detect-type.js'), import('../chunking/chunk-markdown.js')]);
  (await import('../chunking/tokenizer.js')).prepareTokenizer();
}

// Once ready, a warm child that is still idle loads the parsers a knowledge base sees most
// (PDF: pdf.js takes ~100 ms of CPU to load, HTML and Markdown half that together), so a
// first document of these formats does not pay for it inside its job. With `warm-up`
// (argv[3]), it then extracts a small PDF built in code, so that pdf.js's hot paths and the
// page rebuild are compiled too: a fresh child read a long PDF's pages at about 15 ms each
// where a child that had read PDFs before took 6 ms. It is done after `ready`: a request
// that arrives meanwhile stops it at the next page and waits only for that (see
// `serveRequests`). The pool asks for `warm-up` in compiled children only: under tsx (tests,
// development) compiling parsers a child may never use would cost more than it saves, and
// the loading alone is left out there too unless the pool asks.
const PRELOADED: readonly SourceFormat[] = ['pdf', 'html', 'markdown'];
const warmUp = async (signal: AbortSignal): Promise<number> => {
  await loadExtractors(PRELOADED);
  return process.argv[3] === 'warm-up' ? (await import('../extractors/pdf/warm-up.js')).warmUpPdfReading(signal) : 0;
};

serveRequests(
  async ({ bytes, opts, pdfRange }) => {
    if (pdfRange) return { pages: await (await import('../extractors/pdf/index.js')).readPdfRange(bytes, pdfRange, opts.maxTextChars) };
    if (opts.cutOnly) return { extraction: (await import('../chunking/cut-request.js')).cutStoredMarkdown(bytes, opts) };
    return { extraction: await extractText(bytes, opts) };
  },
  warm && (import.meta.url.endsWith('.js') || process.argv[3] === 'warm-up') ? warmUp : undefined,
);
