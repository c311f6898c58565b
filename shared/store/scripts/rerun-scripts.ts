import type { SourceTarget } from '../../sources/source-ref.js';
import { defineScript } from './script.js';

type RerunInput = SourceTarget & { now: string };
/** `fetchedAfter`: a refresh by hand is refused ('cooling') for a ready source fetched after it (REFRESH_COOLDOWN_SECONDS). */
type RefreshInput = RerunInput & { fetchedAfter?: string };

const refusals = { missing: {}, forbidden: {}, missing_source: {} } as const;

/** Puts a failed source back to pending under a new run. */
export const retrySourceScript = defineScript({
  name: 'kbRetrySource',
  file: 'retrySource',
  lifecycle: { sources: 'retry' },
  keys: ['meta', 'active', 'record', 'blob'],
  build: (i: RerunInput, k) => ({
    keys: { meta: k.kb(i.kbId), active: k.active(i.kbId), record: k.source(i.kbId, i.documentId), blob: k.blob(i.kbId, i.documentId) },
    args: { workspaceId: i.workspaceId, documentId: i.documentId, now: i.now, nowMs: Date.parse(i.now) },
  }),
  replies: { ok: { run: 'int', record: 'rest' }, ...refusals, not_failed: {}, no_bytes: {} },
});

/** Puts a ready or failed URL source back to pending under a new run, keeping its extraction until the run ends. */
export const refreshSourceScript = defineScript({
  name: 'kbRefreshSource',
  file: 'refreshSource',
  lifecycle: { sources: 'refresh' },
  keys: ['meta', 'active', 'record'],
  build: (i: RefreshInput, k) => ({
    keys: { meta: k.kb(i.kbId), active: k.active(i.kbId), record: k.source(i.kbId, i.documentId) },
    args: { workspaceId: i.workspaceId, documentId: i.documentId, now: i.now, nowMs: Date.parse(i.now), fetchedAfter: i.fetchedAfter ?? '' },
  }),
  replies: { ok: { run: 'int', record: 'rest' }, ...refusals, not_url: {}, busy: { status: 'str' }, cooling: { record: 'rest' } },
});

/** What a replace writes into the source's record: its new input (see newSourceFields). */
export interface ReplaceFields {
  type: 'text' | 'file';
  content: string;
  fingerprint: string;
  title?: string;
  filename?: string;
  declaredType?: string;
  mimeType?: string;
  sizeBytes?: string;
  sha256?: string;
}

/** Replaces a ready or failed file or text source with a new version under a new run, keeping its extraction until the run ends. */
export const replaceSourceScript = defineScript({
  name: 'kbReplaceSource',
  file: 'replaceSource',
  lifecycle: { sources: 'replace' },
  keys: ['meta', 'active', 'record', 'blob', 'fingerprints'],
  build: (i: RerunInput & { fields: ReplaceFields; stageKey?: string | undefined; ttl: number; ifRev?: number | undefined }, k) => ({
    keys: {
      meta: k.kb(i.kbId),
      active: k.active(i.kbId),
      record: k.source(i.kbId, i.documentId),
      blob: k.blob(i.kbId, i.documentId),
      fingerprints: k.fingerprints(i.kbId),
    },
    args: {
      workspaceId: i.workspaceId,
      documentId: i.documentId,
      now: i.now,
      nowMs: Date.parse(i.now),
      ttl: i.ttl,
      fields: i.fields,
      ...(i.stageKey !== undefined && { stageKey: i.stageKey }),
      ...(i.ifRev !== undefined && { ifRev: String(i.ifRev) }),
    },
  }),
  replies: {
    ok: { run: 'int', rev: 'int' },
    ...refusals,
    not_replaceable: { type: 'str' },
    busy: { status: 'str' },
    duplicate: { documentId: 'str' },
    stage_missing: {},
    precondition_failed: { rev: 'int' },
  },
});
