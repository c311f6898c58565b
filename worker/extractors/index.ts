import { detectType } from '../../shared/detect-type.js';
import type { SourceFormat } from '../../shared/formats.js';
import { SourceError } from '../../shared/source-errors.js';
import { normalizeText, truncate } from './normalize.js';
import type { ExtractOptions, Extraction, ExtractionWarning, RawExtraction } from './types.js';

export type { ExtractOptions, Extraction } from './types.js';

// Each parser is loaded on first use, so a sandbox child pays only for the one it needs.
const EXTRACTORS: Partial<Record<SourceFormat, (bytes: Uint8Array, opts: ExtractOptions) => Promise<RawExtraction>>> = {
  pdf: async (bytes, opts) => (await import('./pdf.js')).extractPdf(bytes, opts.maxPdfPages, opts.onProgress, opts.maxTextChars),
  docx: async (bytes, opts) => (await import('./docx.js')).extractDocx(bytes, opts.maxDocxUnpackedBytes),
  html: async (bytes, opts) => (await import('./html.js')).extractHtml(bytes, opts.maxHtmlDepth),
  markdown: async (bytes) => (await import('./markdown.js')).extractMarkdown(bytes),
  txt: async (bytes) => (await import('./txt.js')).extractTxt(bytes),
  csv: async (bytes, opts) => (await import('./csv/csv.js')).extractCsv(bytes, undefined, opts.maxTextChars),
  epub: async (bytes, opts) => (await import('./epub/epub.js')).extractEpub(bytes, { maxUnpackedBytes: opts.maxDocxUnpackedBytes, maxTextChars: opts.maxTextChars }),
  ods: async (bytes, opts) => (await import('./ods/ods.js')).extractOds(bytes, { maxUnpackedBytes: opts.maxDocxUnpackedBytes, maxTextChars: opts.maxTextChars }),
  odt: async (bytes, opts) => (await import('./odt/odt.js')).extractOdt(bytes, { maxUnpackedBytes: opts.maxDocxUnpackedBytes }),
  pptx: async (bytes, opts) => (await import('./pptx/pptx.js')).extractPptx(bytes, { maxUnpackedBytes: opts.maxDocxUnpackedBytes, maxTextChars: opts.maxTextChars }),
  xlsx: async (bytes, opts) => (await import('./xlsx/xlsx.js')).extractXlsx(bytes, { maxUnpackedBytes: opts.maxDocxUnpackedBytes, maxTextChars: opts.maxTextChars }),
};

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
  const extractor = EXTRACTORS[detection.format];
  if (!extractor) throw new SourceError('unsupported_media_type', `The service cannot read .${detection.format} files yet.`);

  const raw = await extractor(bytes, opts);
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
    ...(opts.chunking ? { chunks: await chunksOf(markdown, opts.chunking, pageStarts) } : {}),
    truncated,
    format: detection.format,
    mimeType: detection.mimeType,
  };
}

/** Plain text is the Markdown read back without its markup; a text file is its own plain text. */
async function plainText(format: SourceFormat, markdown: string, fromExtractor: string | undefined, max: number): Promise<string> {
  if (format === 'txt') return markdown;
  if (fromExtractor !== undefined) return truncate(normalizeText(fromExtractor), max).text;
  return normalizeText((await import('./markdown-text.js')).markdownToText(markdown));
}

async function chunksOf(markdown: string, chunking: NonNullable<ExtractOptions['chunking']>, pageStarts: number[] | undefined) {
  const { chunkMarkdown } = await import('../chunking/chunk-markdown.js');
  return chunkMarkdown(markdown, { ...chunking, ...(pageStarts ? { pageStarts } : {}) });
}

// Replacement characters, C1 controls, private-use and unassigned code points: what a wrong
// decoding or a font without a Unicode map leaves behind.
const GARBLED = /[\ufffd\u0080-\u009f\ue000-\uf8ff\p{Cn}]/gu;
const LETTERS = /[\p{L}\p{N}]/gu;

/** True when garbage characters outnumber letters and digits in a text long enough to judge. */
export function looksGarbled(text: string): boolean {
  const sample = text.length > 200_000 ? text.slice(0, 200_000) : text;
  const bad = sample.match(GARBLED)?.length ?? 0;
  if (bad < 20) return false;
  return bad > (sample.match(LETTERS)?.length ?? 0);
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
