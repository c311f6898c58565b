import { detectType } from '../../shared/detect-type.js';
import type { SourceFormat } from '../../shared/formats.js';
import { SourceError } from '../../shared/source-errors.js';
import { normalizeText, truncate } from './normalize.js';
import type { ExtractOptions, Extraction, RawExtraction } from './types.js';

export type { ExtractOptions, Extraction } from './types.js';

// Each parser is loaded on first use, so a sandbox child pays only for the one it needs.
const EXTRACTORS: Record<SourceFormat, (bytes: Uint8Array, opts: ExtractOptions) => Promise<RawExtraction>> = {
  pdf: async (bytes, opts) => (await import('./pdf.js')).extractPdf(bytes, opts.maxPdfPages),
  docx: async (bytes, opts) => (await import('./docx.js')).extractDocx(bytes, opts.maxDocxUnpackedBytes),
  html: async (bytes, opts) => (await import('./html.js')).extractHtml(bytes, opts.maxHtmlDepth),
  markdown: async (bytes) => (await import('./markdown.js')).extractMarkdown(bytes),
  txt: async (bytes) => (await import('./txt.js')).extractTxt(bytes),
};

/**
 * Detects the type of `bytes` from their content and extracts clean text:
 * paragraphs separated by one blank line, `\n` line endings, trimmed, cut to
 * `maxTextChars`. Throws {@link SourceError}: `unsupported_media_type`,
 * `encrypted`, `corrupt`, `no_text` (nothing but whitespace) or `too_complex`.
 * Runs in the calling process: use `extractInSandbox` for untrusted input.
 */
export async function extractText(bytes: Uint8Array, opts: ExtractOptions): Promise<Extraction> {
  const detection = await detectType(bytes, { filename: opts.filename, declaredType: opts.declaredType }, true);
  if (!detection.ok) throw new SourceError('unsupported_media_type', detection.message);
  if (detection.encrypted) throw new SourceError('encrypted', 'The Word document is protected by a password.');

  const raw = await EXTRACTORS[detection.format](bytes, opts);
  const joined = joinPages(raw);
  const { text: markdown, truncated } = truncate(joined.markdown, opts.maxTextChars);
  if (markdown === '') throw new SourceError('no_text', 'The document contains no text.');
  return {
    markdown,
    text: markdown,
    ...(raw.title ? { title: raw.title } : {}),
    ...(raw.pageCount !== undefined ? { pageCount: raw.pageCount } : {}),
    ...(joined.pageStarts ? { pageStarts: joined.pageStarts.map((s) => Math.min(s, markdown.length)) } : {}),
    ...(raw.warnings && raw.warnings.length > 0 ? { warnings: raw.warnings } : {}),
    truncated: truncated || raw.truncated === true,
    format: detection.format,
    mimeType: detection.mimeType,
  };
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
