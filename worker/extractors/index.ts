import { detectType } from '../../shared/formats/detect-type.js';
import type { SourceFormat } from '../../shared/formats/formats.js';
import { SourceError } from '../../shared/source-errors.js';
import { looksGarbled } from './common/garbled.js';
import { normalizeText, truncate } from './common/normalize.js';
import type { ExtractOptions, Extraction, ExtractionWarning, FormatExtractor, RawExtraction } from './types.js';

export type { ExtractOptions, Extraction } from './types.js';

/**
 * The format registry: each format is a folder whose `index.ts` exports
 * `extract`, registered by one line here (its name is a `SourceFormat` of
 * `shared/formats/formats.ts`, told apart by `shared/formats/detect-type.ts`). Each is loaded
 * on first use, so a sandbox child pays only for the parser it needs.
 */
const FORMATS: Record<SourceFormat, () => Promise<{ extract: FormatExtractor }>> = {
  pdf: () => import('./pdf/index.js'),
  docx: () => import('./docx/index.js'),
  html: () => import('./html/index.js'),
  markdown: () => import('./markdown/index.js'),
  txt: () => import('./txt/index.js'),
  csv: () => import('./csv/index.js'),
  xlsx: () => import('./xlsx/index.js'),
  ods: () => import('./ods/index.js'),
  pptx: () => import('./pptx/index.js'),
  odt: () => import('./odt/index.js'),
  epub: () => import('./epub/index.js'),
  image: () => import('./image/index.js'),
};

/** Loads the extractors of `formats`, as a warm sandbox child does while it waits for its first request. */
export async function loadExtractors(formats: readonly SourceFormat[]): Promise<void> {
  await Promise.all(formats.map((format) => FORMATS[format]()));
}

/**
 * Detects the type of `bytes` from their content and extracts Markdown and
 * the plain text derived from it: paragraphs separated by one blank line,
 * `\n` line endings, trimmed, cut to `maxTextChars` (then marked `truncated`,
 * with a warning). With `chunking`, also splits the Markdown into chunks.
 * Throws {@link SourceError}: `unsupported_media_type`, `encrypted`,
 * `corrupt`, `no_text` (nothing but whitespace) or `too_complex`.
 * Runs in the calling process: use `extractInSandbox` for untrusted input.
 */
export async function extractText(bytes: Uint8Array, opts: ExtractOptions): Promise<Extraction> {
  const detection = await detectType(bytes, { filename: opts.filename, declaredType: opts.declaredType }, true, opts.acceptedFormats);
  if (!detection.ok) throw new SourceError('unsupported_media_type', detection.message);
  if (detection.encrypted) throw new SourceError('encrypted', 'The Office document is protected by a password.');

  const raw = await (await FORMATS[detection.format]()).extract(bytes, opts);
  const joined = joinPages(raw);
  const { text: markdown, truncated: cut } = truncate(joined.markdown, opts.maxTextChars);
  const text = await plainText(detection.format, markdown, cut ? undefined : raw.text, opts.maxTextChars);
  if (text === '') throw new SourceError('no_text', 'The document contains no text.');
  const truncated = cut || raw.truncated === true;
  const warnings: ExtractionWarning[] = [...(raw.warnings ?? [])];
  if (truncated && !warnings.some((w) => w.code === 'truncated')) {
    warnings.push({ code: 'truncated', message: 'Only the first part of the document was extracted: it is longer than the limit.' });
  }
  if (detection.format !== 'pdf' && !warnings.some((w) => w.code === 'garbled_text') && looksGarbled(text)) {
    warnings.push({ code: 'garbled_text', message: 'Most of the text is replacement characters or symbols; the encoding may be wrong.' });
  }
  const pageStarts = joined.pageStarts?.map((s) => Math.min(s, markdown.length));
  return {
    markdown,
    text,
    ...(raw.title ? { title: raw.title } : {}),
    ...(raw.pageCount !== undefined ? { pageCount: raw.pageCount } : {}),
    ...(pageStarts ? { pageStarts } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(opts.chunking ? { chunks: await chunksOf(markdown, opts.chunking, pageStarts, detection.format === 'txt') } : {}),
    truncated,
    format: detection.format,
    mimeType: detection.mimeType,
  };
}

/** Plain text is the Markdown read back without its markup; a text file is its own plain text. */
async function plainText(format: SourceFormat, markdown: string, fromExtractor: string | undefined, max: number): Promise<string> {
  if (format === 'txt') return markdown;
  if (fromExtractor !== undefined) return truncate(normalizeText(fromExtractor), max).text;
  return normalizeText((await import('./markdown/token-walker.js')).markdownToText(markdown));
}

async function chunksOf(markdown: string, chunking: NonNullable<ExtractOptions['chunking']>, pageStarts: number[] | undefined, plainText: boolean) {
  const { chunkMarkdown } = await import('../chunking/chunk-markdown.js');
  return chunkMarkdown(markdown, { ...chunking, ...(pageStarts ? { pageStarts } : {}), ...(plainText ? { plainText } : {}) });
}

/** Normalizes the extractor's Markdown; for pages, joins them and records where each starts. */
function joinPages(raw: RawExtraction): { markdown: string; pageStarts?: number[] } {
  if (!raw.pages) return { markdown: normalizeText(raw.markdown ?? '') };
  const pageStarts: number[] = [];
  let markdown = '';
  for (const page of raw.pages) {
    const body = normalizeText(page);
    if (body !== '' && markdown !== '') markdown += '\n\n';
    pageStarts.push(markdown.length);
    markdown += body;
  }
  return { markdown, pageStarts };
}
