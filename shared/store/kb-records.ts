import { createHash } from 'node:crypto';
import type { ChunkSettings } from '../chunking/chunk-settings.js';
import type { StagedWrite } from './staging.js';
import type { StoredChunk } from '../schemas/chunk.js';
import type { Metadata } from '../schemas/metadata.js';
import type { SourceErrorCode } from '../source-errors.js';
import type { KbStatus, Source, SourceCounts, SourceStatus, SourceType, SourceWarning } from '../schemas/knowledge-base.js';
import { ACTIVE_STATUSES, SOURCE_STATUSES, readCounts } from '../sources/lifecycle.js';

/** A source as stored: the public fields plus what the worker needs. */
export interface StoredSource extends Source {
  run: number;
  filename?: string;
  declaredType?: string;
  /** SHA-256 of the bytes last extracted (uploaded or fetched). */
  sha256?: string;
  /** While a refresh runs: the status the source had before it. */
  refreshFrom?: SourceStatus;
  /** {@link chunkingTag} of the settings its chunks were cut with. */
  chunking?: string;
  /** PDF: where each page starts in the Markdown. */
  pageStarts?: number[];
  /** Its Markdown was taken over from another source's extraction and only needs cutting with this knowledge base's settings. */
  rechunkOnly?: boolean;
  /** URL sources: the validators of the last fetched response, for a conditional refresh. */
  etag?: string;
  lastModified?: string;
  /** A text source's first run: the job it runs in with other texts of its request (see TEXT_BATCH_JOB). */
  batchJob?: string;
}

/** What the API hands the store for each new source. */
export interface NewSource {
  documentId: string;
  type: SourceType;
  content: string;
  title?: string;
  filename?: string;
  declaredType?: string;
  mimeType?: string;
  sizeBytes?: number;
  /** Given with the source (URL and text sources). */
  metadata?: Metadata;
  /** Stage key holding the uploaded bytes, renamed to the source's blob on commit. */
  stageKey?: string;
  /** SHA-256 of a file's bytes (hex). */
  sha256?: string;
  /** What makes two sources of one knowledge base the same; see {@link sourceFingerprint}. */
  fingerprint: string;
  /** An extraction of the same bytes elsewhere in the workspace: the source is added ready with it. */
  reuse?: ReusedExtraction;
  /** The site whose discovery found this page. */
  siteId?: string;
  /** A text source's batch job (see assignTextBatches). */
  batchJob?: string;
}

/** What a new source takes over from an earlier extraction of the same file. */
export interface ReusedExtraction {
  /** Source fields of the result (type, size, counts, title, warnings). */
  fields: Record<string, string>;
  text: string;
  markdown: string;
  /** Chunk entries as stored (JSON strings). */
  chunks: string[];
  /** The same, staged on the new source's knowledge base before its commit (a large extraction; see staging.ts). */
  staged?: StagedWrite;
}

/**
 * Two sources of one knowledge base are the same when they have the same
 * file bytes, the same URL (normalized, without its fragment, which is never
 * fetched) or the same text under the same title.
 */
export function sourceFingerprint(s: { type: SourceType; content: string; title?: string; sha256?: string }): string {
  if (s.type === 'file') return `file:${s.sha256}`;
  if (s.type === 'url') {
    const url = new URL(s.content);
    url.hash = '';
    return `url:${url.href}`;
  }
  return `text:${createHash('sha256').update(`${s.title ?? ''}\0${s.content}`).digest('hex')}`;
}

export interface KbMeta {
  kbId: string;
  workspaceId: string;
  name: string;
  createdAt: string;
  updatedAt: string;
  sourceCounts: SourceCounts;
  /** Revision, raised by every change of the knowledge base or of one of its sources (the ETag). */
  rev: number;
  /** Refresh period of the URL sources, hours; 0 when off. */
  autoRefreshHours: number;
  /** Its own chunking settings; absent on a knowledge base made before they existed (then the deployment's apply). */
  chunking?: ChunkSettings;
  /** Sites whose discovery is running: the knowledge base is in progress meanwhile. */
  sitesDiscovering: number;
  /** The number of the last change of one of its source records (see KeySpace.changedSources); 0 before any. */
  sourceSeq: number;
}

/** What the worker writes back when a source is done. */
export type SourceOutcome =
  | {
      status: 'ready';
      /** Plain text, derived from the Markdown (the API's `text`). */
      text: string;
      /** The canonical extraction; a text source has none beyond its text. */
      markdown?: string;
      chunks?: StoredChunk[];
      warnings?: SourceWarning[];
      /** SHA-256 of the extracted bytes (URL sources: to tell an unchanged page on refresh). */
      sha256?: string;
      /** A refresh found the same bytes: the stored text, Markdown and chunks stay as they are. */
      unchanged?: boolean;
      /** When the URL was last fetched, and when a refresh last found new content. */
      checkedAt?: string;
      /** URL sources: the response's validators (ETag, Last-Modified); empty clears them. */
      etag?: string;
      lastModified?: string;
      refreshedAt?: string;
      title?: string;
      mimeType?: string;
      sizeBytes?: number;
      pageCount?: number;
      /** PDF: where each page starts in the Markdown, kept so a re-chunk can tell pages again. */
      pageStarts?: number[];
      /** {@link chunkingTag} of the settings the chunks were cut with. */
      chunking?: string;
      truncated: boolean;
    }
  | {
      status: 'failed';
      error: { code: SourceErrorCode; message: string };
      mimeType?: string;
      sizeBytes?: number;
      /** Keep the staged bytes so a later retry can use them. */
      keepBlob?: boolean;
    };

const num = (v: string | undefined): number | undefined => (v === undefined || v === '' ? undefined : Number(v));

export function parseMeta(h: Record<string, string>): KbMeta | null {
  if (!h.kbId || !h.workspaceId) return null;
  return {
    kbId: h.kbId,
    workspaceId: h.workspaceId,
    name: h.name ?? '',
    createdAt: h.createdAt ?? '',
    updatedAt: h.updatedAt ?? h.createdAt ?? '',
    rev: num(h.rev) ?? 0,
    autoRefreshHours: num(h.autoRefreshHours) ?? 0,
    sitesDiscovering: Math.max(0, num(h.sitesDiscovering) ?? 0),
    sourceSeq: num(h.sourceSeq) ?? 0,
    sourceCounts: readCounts(h),
    ...(h.chunkMaxTokens ? { chunking: { maxTokens: Number(h.chunkMaxTokens), overlapTokens: num(h.chunkOverlapTokens) ?? 0 } } : {}),
  };
}

/** A knowledge base's status, from its counts: in progress while any source is active or a site is discovering. */
export function kbStatus(c: SourceCounts, sitesDiscovering = 0): KbStatus {
  if (sitesDiscovering > 0 || ACTIVE_STATUSES.some((s) => c[s] > 0)) return 'in_progress';
  if (SOURCE_STATUSES.every((s) => c[s] === 0)) return 'empty';
  return c.failed > 0 ? 'partial' : 'ready';
}

export function parseSource(h: Record<string, string>): StoredSource | null {
  if (!h.documentId || !h.status) return null;
  const s: StoredSource = {
    documentId: h.documentId,
    type: h.type as SourceType,
    content: h.content ?? '',
    status: h.status as SourceStatus,
    createdAt: h.createdAt ?? '',
    updatedAt: h.updatedAt ?? '',
    run: num(h.run) ?? 1,
  };
  if (h.title) s.title = h.title;
  if (h.mimeType) s.mimeType = h.mimeType;
  if (h.sizeBytes) s.sizeBytes = Number(h.sizeBytes);
  if (h.charCount) s.charCount = Number(h.charCount);
  if (h.pageCount) s.pageCount = Number(h.pageCount);
  if (h.truncated === '1') s.truncated = true;
  if (h.error) s.error = JSON.parse(h.error) as Source['error'];
  if (h.warnings) s.warnings = JSON.parse(h.warnings) as SourceWarning[];
  if (h.chunkCount) s.chunkCount = Number(h.chunkCount);
  if (h.filename) s.filename = h.filename;
  if (h.declaredType) s.declaredType = h.declaredType;
  if (h.sha256) s.sha256 = h.sha256;
  if (h.refreshFrom) s.refreshFrom = h.refreshFrom as SourceStatus;
  if (h.checkedAt) s.checkedAt = h.checkedAt;
  if (h.progress && h.status === 'processing') s.progress = JSON.parse(h.progress) as Source['progress'];
  if (h.refreshedAt) s.refreshedAt = h.refreshedAt;
  if (h.chunking) s.chunking = h.chunking;
  if (h.pageStarts) s.pageStarts = JSON.parse(h.pageStarts) as number[];
  if (h.rechunkOnly === '1') s.rechunkOnly = true;
  if (h.metadata) s.metadata = JSON.parse(h.metadata) as Metadata;
  if (h.siteId) s.siteId = h.siteId;
  if (h.etag) s.etag = h.etag;
  if (h.lastModified) s.lastModified = h.lastModified;
  if (h.batchJob) s.batchJob = h.batchJob;
  return s;
}

/** The public view of a stored source (internal fields dropped). */
export function publicSource(s: StoredSource): Source {
  const {
    run: _run,
    filename: _f,
    declaredType: _d,
    sha256: _h,
    refreshFrom: _r,
    chunking: _c,
    pageStarts: _p,
    rechunkOnly: _o,
    etag: _e,
    lastModified: _l,
    batchJob: _b,
    ...pub
  } = s;
  return pub;
}

/**
 * The record fields an extraction consists of: what a new source with the
 * same bytes takes over (its `filename` only to tell whether the title was
 * just the old file's name).
 */
export const EXTRACTION_FIELDS = [
  'mimeType',
  'sizeBytes',
  'charCount',
  'pageCount',
  'pageStarts',
  'truncated',
  'warnings',
  'chunkCount',
  'chunking',
  'title',
  'filename',
] as const satisfies readonly (keyof StoredSource)[];

/** Flattens a new source to the string fields of its record (its status is set by the commit script). */
export function newSourceFields(s: NewSource, now: string): Record<string, string> {
  const f: Record<string, string> = {
    documentId: s.documentId,
    type: s.type,
    content: s.content,
    run: '1',
    createdAt: now,
    updatedAt: now,
  };
  if (s.title) f.title = s.title;
  if (s.filename) f.filename = s.filename;
  if (s.declaredType) f.declaredType = s.declaredType;
  if (s.mimeType) f.mimeType = s.mimeType;
  if (s.sizeBytes !== undefined) f.sizeBytes = String(s.sizeBytes);
  if (s.sha256) f.sha256 = s.sha256;
  f.fingerprint = s.fingerprint;
  if (s.metadata && Object.keys(s.metadata).length > 0) f.metadata = JSON.stringify(s.metadata);
  if (s.siteId) f.siteId = s.siteId;
  if (s.batchJob) f.batchJob = s.batchJob;
  return f;
}

/** Flattens an outcome to the record fields finishSource sets. */
export function outcomeFields(o: SourceOutcome): Record<string, string> {
  const f: Record<string, string> = {};
  if (o.mimeType) f.mimeType = o.mimeType;
  if (o.sizeBytes !== undefined) f.sizeBytes = String(o.sizeBytes);
  if (o.status === 'ready' && o.etag !== undefined) f.etag = o.etag;
  if (o.status === 'ready' && o.lastModified !== undefined) f.lastModified = o.lastModified;
  if (o.status === 'ready' && o.unchanged) {
    if (o.checkedAt) f.checkedAt = o.checkedAt;
    // A refresh's own warning (refresh_failed) comes and goes while the extraction stays.
    if (o.warnings) f.warnings = o.warnings.length > 0 ? JSON.stringify(o.warnings) : '';
    return f;
  }
  if (o.status === 'ready') {
    if (o.sha256) f.sha256 = o.sha256;
    if (o.checkedAt) f.checkedAt = o.checkedAt;
    if (o.refreshedAt) f.refreshedAt = o.refreshedAt;
    f.charCount = String(o.text.length);
    if (o.title) f.title = o.title;
    if (o.pageCount !== undefined) f.pageCount = String(o.pageCount);
    f.truncated = o.truncated ? '1' : '0';
    f.warnings = o.warnings && o.warnings.length > 0 ? JSON.stringify(o.warnings) : '';
    f.chunkCount = String(o.chunks?.length ?? 0);
    if (o.chunking) f.chunking = o.chunking;
    f.pageStarts = o.pageStarts ? JSON.stringify(o.pageStarts) : '';
    f.rechunkOnly = '';
  } else {
    f.error = JSON.stringify(o.error);
  }
  return f;
}
