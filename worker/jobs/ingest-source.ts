import { createHash } from 'node:crypto';
import type { Config } from '../../shared/runtime/config.js';
import { toStoredChunks } from '../../shared/schemas/chunk.js';
import type { SourceProgress } from '../../shared/schemas/knowledge-base.js';
import { SourceError } from '../../shared/source-errors.js';
import type { SourceOutcome, StoredSource } from '../../shared/store/kb-records.js';
import type { KbStore } from '../../shared/store/kb-store.js';
import type { Extraction } from '../extractors/index.js';
import { normalizeText, truncate } from '../extractors/common/normalize.js';
import type { HostLease } from '../fetch/host-gate.js';
import type { ExtractHints } from '../sandbox/sandbox-pool.js';
import { chunkingTag, type ChunkSettings } from '../../shared/chunking/chunk-settings.js';
import { cutChunks, cutChunksInSandbox, cutContextOf } from '../chunking/cut-chunks.js';
import { firstHeading } from '../chunking/segments.js';
import type { FetchedUrl } from '../fetch/fetch-url.js';
import { warningsAfterFetch } from './refresh-outcomes.js';

/** The two outside effects of ingestion, injectable for tests. */
export interface IngestDeps {
  config: Config;
  kbs: KbStore;
  /**
   * Fetches a URL source; `lease`, a slot of the URL's host already taken, is
   * the fetch's to release; `conditional`, the validators of the copy held.
   */
  fetch(url: string, lease?: HostLease, conditional?: { etag?: string; lastModified?: string }): Promise<FetchedUrl>;
  extract(
    bytes: Uint8Array,
    hints: ExtractHints,
    onProgress?: (progress: SourceProgress) => void,
  ): Promise<Extraction>;
}

type ReadyOutcome = Extract<SourceOutcome, { status: 'ready' }>;

/** A 304 may leave a validator out: the one held then stays. */
function withoutEmpty(v: { etag: string; lastModified: string }): { etag?: string; lastModified?: string } {
  return { ...(v.etag && { etag: v.etag }), ...(v.lastModified && { lastModified: v.lastModified }) };
}

/**
 * Turns one source into its text: a text source is normalized in place, a
 * file's staged bytes and a URL's fetched body are extracted in the sandbox.
 * Limits are enforced again here, since URL bodies never passed the API.
 */
export async function ingestSource(
  deps: IngestDeps,
  kbId: string,
  source: StoredSource,
  chunking: ChunkSettings,
  onProgress?: (progress: SourceProgress) => void,
): Promise<ReadyOutcome> {
  if (source.type === 'text') return textOutcome(deps, source, chunking);
  if (source.rechunkOnly) return rechunkOutcome(deps, kbId, source, chunking);

  let bytes: Uint8Array;
  let hints: ExtractHints;
  let fallbackTitle: string | undefined;
  let urlFacts: Pick<ReadyOutcome, 'sha256' | 'checkedAt' | 'refreshedAt' | 'etag' | 'lastModified'> = {};
  if (source.type === 'file') {
    const blob = await deps.kbs.readBlob(kbId, source.documentId);
    if (!blob) throw new SourceError('internal', 'The uploaded file is no longer available; upload it again');
    bytes = blob;
    hints = { ...(source.filename ? { filename: source.filename } : {}), ...(source.declaredType ? { declaredType: source.declaredType } : {}) };
    fallbackTitle = source.filename;
  } else {
    // A refresh of a ready page asks the origin whether it changed: by its ETag when it sent one, else by
    // its Last-Modified. Never both: a server that answers 304 to an unchanged date beside a changed ETag
    // (a page whose body changed while its file's date did not) would keep the old text.
    const validators = { ...(source.etag && { etag: source.etag }), ...(source.lastModified && { lastModified: source.lastModified }) };
    const asked = validators.etag ? { etag: validators.etag } : validators;
    const conditional = source.refreshFrom === 'ready' && Object.keys(asked).length > 0 ? asked : undefined;
    const fetched = await deps.fetch(source.content, undefined, conditional);
    const checkedAt = new Date().toISOString();
    const fresh = { etag: fetched.etag ?? '', lastModified: fetched.lastModified ?? '' };
    if (fetched.notModified) {
      const text = await deps.kbs.getText(kbId, source.documentId);
      if (text === null) throw new SourceError('internal', 'The stored text of the page is missing; refresh it again', true);
      return { status: 'ready', text, unchanged: true, checkedAt, truncated: source.truncated === true, warnings: warningsAfterFetch(source), ...validators, ...withoutEmpty(fresh) };
    }
    const sha256 = createHash('sha256').update(fetched.bytes).digest('hex');
    // A refresh that fetched the same bytes keeps what was extracted from them.
    if (source.refreshFrom === 'ready' && source.sha256 === sha256) {
      const text = await deps.kbs.getText(kbId, source.documentId);
      if (text !== null) return { status: 'ready', text, unchanged: true, checkedAt, truncated: source.truncated === true, warnings: warningsAfterFetch(source), ...fresh };
    }
    urlFacts = { sha256, checkedAt, ...fresh, ...(source.refreshFrom ? { refreshedAt: checkedAt } : {}) };
    bytes = fetched.bytes;
    hints = { ...(fetched.filename ? { filename: fetched.filename } : {}), ...(fetched.contentType ? { declaredType: fetched.contentType } : {}) };
    fallbackTitle = fetched.filename ?? new URL(fetched.finalUrl).hostname;
  }
  if (bytes.length > deps.config.MAX_FILE_BYTES) {
    throw new SourceError('file_too_large', `The content is larger than the ${deps.config.MAX_FILE_BYTES}-byte limit`);
  }
  const extraction = await deps.extract(bytes, { ...hints, chunking }, onProgress);
  const title = extraction.title ?? fallbackTitle;
  return {
    status: 'ready',
    text: extraction.text,
    markdown: extraction.markdown,
    chunks: toStoredChunks(extraction.markdown, extraction.chunks ?? []),
    chunking: chunkingTag(chunking),
    ...(extraction.pageStarts ? { pageStarts: extraction.pageStarts } : {}),
    ...(extraction.warnings && extraction.warnings.length > 0 ? { warnings: extraction.warnings } : {}),
    ...urlFacts,
    ...(title ? { title } : {}),
    mimeType: extraction.mimeType,
    sizeBytes: bytes.length,
    ...(extraction.pageCount !== undefined ? { pageCount: extraction.pageCount } : {}),
    truncated: extraction.truncated,
  };
}

/**
 * A file whose Markdown was taken over from an extraction in another
 * knowledge base: only its chunks are cut again, with this one's settings.
 */
async function rechunkOutcome(deps: IngestDeps, kbId: string, source: StoredSource, chunking: ChunkSettings): Promise<ReadyOutcome> {
  const [text, markdown] = await Promise.all([deps.kbs.getText(kbId, source.documentId), deps.kbs.getMarkdown(kbId, source.documentId)]);
  if (text === null || markdown === null) throw new SourceError('internal', 'The reused extraction is no longer available; upload the file again');
  return {
    status: 'ready',
    text,
    markdown,
    chunks: await cutChunksInSandbox(deps.extract, markdown, chunking, cutContextOf(source)),
    chunking: chunkingTag(chunking),
    // What the finish writes of an extraction is what the reused one said.
    ...(source.pageStarts ? { pageStarts: source.pageStarts } : {}),
    ...(source.warnings ? { warnings: source.warnings } : {}),
    ...(source.title ? { title: source.title } : {}),
    ...(source.mimeType ? { mimeType: source.mimeType } : {}),
    ...(source.sizeBytes !== undefined ? { sizeBytes: source.sizeBytes } : {}),
    ...(source.pageCount !== undefined ? { pageCount: source.pageCount } : {}),
    truncated: source.truncated === true,
  };
}

/** A text source's outcome: its text normalized, cut to the limit and into chunks, in this process. */
export function textOutcome(deps: Pick<IngestDeps, 'config'>, source: StoredSource, settings: ChunkSettings): ReadyOutcome {
  const normalized = normalizeText(source.content);
  if (normalized.length === 0) throw new SourceError('no_text', 'The text is empty once whitespace is removed');
  const { text, truncated } = truncate(normalized, deps.config.MAX_TEXT_CHARS);
  const title = source.title || firstHeading(text);
  // A text source is at most 1 MiB, so its chunks are counted here rather than in a sandbox child.
  // Its title roots their heading paths, as a re-chunk reads it from the record (cutContextOf).
  return {
    status: 'ready',
    text,
    markdown: text,
    chunks: cutChunks(text, settings, cutContextOf({ type: 'text', ...(title ? { title } : {}) })),
    chunking: chunkingTag(settings),
    ...(title ? { title } : {}),
    mimeType: 'text/plain',
    sizeBytes: Buffer.byteLength(source.content, 'utf8'),
    truncated,
  };
}
