import type { SourceProgress } from '../../schemas/knowledge-base.js';
import type { SourceRef } from '../../sources/source-ref.js';
import { FINAL_STATUSES } from '../../sources/lifecycle.js';
import { feedArgs, feedEntries } from '../../feed/feed-entries.js';
import { outboxArgs, sourceEndEvent } from '../outbox-events.js';
import type { KeySpace } from '../keys.js';
import { DROP_BATCH } from './delete-scripts.js';
import { defineScript, type FieldKind } from './script.js';

type FinalStatus = (typeof FINAL_STATUSES)[number];

/** A run that has ended replies with its final status (`{<final status>}` in the script headers). */
const FINAL_REPLIES = Object.fromEntries(FINAL_STATUSES.map((s) => [s, {}])) as { readonly [S in FinalStatus]: Record<never, FieldKind> };

/** Why a worker transition wrote nothing: the source is gone, another run or attempt owns it, or it has ended. */
const REFUSALS = { gone: {}, stale: {}, ...FINAL_REPLIES } as const;

/** When a transition happens, and which attempt makes it (its job lock token; '' checks no claim). */
export interface TransitionAt {
  now: string;
  claim?: string;
}

/**
 * Worker: marks a pending source processing if this run still owns it, and
 * records the claiming attempt; replies with the source's record and the
 * knowledge base's chunking settings, read after the claim. With
 * `workspaceId`, a knowledge base of another workspace is 'gone'.
 */
export const startSourceScript = defineScript({
  name: 'kbStartSource',
  file: 'startSource',
  lifecycle: { sources: 'start' },
  keys: ['meta', 'active', 'record'],
  build: (i: SourceRef & TransitionAt & { workspaceId?: string }, k) => ({
    keys: { meta: k.kb(i.kbId), active: k.active(i.kbId), record: k.source(i.kbId, i.documentId) },
    args: { documentId: i.documentId, run: String(i.run), claim: i.claim ?? '', now: i.now, nowMs: Date.parse(i.now), workspaceId: i.workspaceId ?? '' },
  }),
  replies: { ok: { chunkMax: 'str', chunkOverlap: 'str', record: 'record' }, ...REFUSALS },
});

/** What a finish writes, flattened for the script. */
export interface FinishArgs {
  status: 'ready' | 'failed';
  fields: Record<string, string>;
  text: string;
  markdown: string;
  /** Chunk entries, each a JSON string. */
  chunks: string[];
  unchanged: boolean;
  keepBlobSeconds: number;
  /** A failure's error, told in its source.failed. */
  error?: { code: string; message: string } | undefined;
  /**
   * A large extraction staged before the script (see staging.ts): then
   * `text`, `markdown` and `chunks` are not sent, and the feed events are
   * emitted afterwards in batches (emitChunks).
   */
  staged?: StagedExtraction | undefined;
}

/** A staged extraction: the nonce its keys were named with, and what each key must hold. */
export interface StagedExtraction {
  nonce: string;
  textBytes: number;
  markdownBytes: number;
  chunks: number;
  feed: number;
  /** Bytes of the feed entries, counted as the source's `emitBytes` until emitted. */
  feedBytes: number;
  /** Bytes of text, Markdown and chunk entries, as the source's `extractedBytes`. */
  extractedBytes: number;
}

/** The keys an extraction staged under `nonce` uses (any nonce names keys on the knowledge base's slot). */
export function stagedKeys(k: KeySpace, kbId: string, documentId: string, nonce: string) {
  return {
    stagedText: k.staged(kbId, documentId, nonce, 'text'),
    stagedMarkdown: k.staged(kbId, documentId, nonce, 'md'),
    stagedChunks: k.staged(kbId, documentId, nonce, 'chunks'),
    stagedFeed: k.staged(kbId, documentId, nonce, 'feed'),
  };
}

/** Worker: records a run's outcome once; a duplicate or stale run (or attempt) writes nothing. */
export const finishSourceScript = defineScript({
  name: 'kbFinishSource',
  file: 'finishSource',
  lifecycle: { sources: 'finish' },
  keys: [
    'meta', 'active', 'record', 'text', 'blob', 'markdown', 'chunks', 'chunkIds',
    'stagedText', 'stagedMarkdown', 'stagedChunks', 'stagedFeed', 'emitList', 'emitSeen', 'emits',
  ],
  build: (i: SourceRef & TransitionAt & FinishArgs, k) => {
    const { record, text, blob, markdown, chunks, chunkIds, emitList, emitSeen } = k.sourceKeys(i.kbId, i.documentId);
    const { nonce, ...staged } = i.staged ?? { nonce: '-' };
    const inline = i.status === 'ready' && !i.unchanged && !i.staged;
    return {
      keys: {
        meta: k.kb(i.kbId), active: k.active(i.kbId), record, text, blob, markdown, chunks, chunkIds,
        ...stagedKeys(k, i.kbId, i.documentId, nonce), emitList, emitSeen, emits: k.metadataEmits(i.kbId),
      },
      args: {
        documentId: i.documentId,
        run: String(i.run),
        claim: i.claim ?? '',
        now: i.now,
        nowMs: Date.parse(i.now),
        status: i.status,
        fields: i.fields,
        ...(inline && { text: i.text, chunks: i.chunks }),
        ...(inline && i.markdown !== i.text && { markdown: i.markdown }),
        ...(i.staged && { staged }),
        unchanged: i.unchanged,
        keepBlobSeconds: i.keepBlobSeconds,
        dropInline: DROP_BATCH,
        feedChunks: inline ? feedEntries(i.kbId, i.documentId, i.markdown, i.chunks) : [],
        feed: feedArgs(k, i.kbId),
        event: sourceEndEvent(i, i.status, i.error),
        outbox: outboxArgs(k, i.kbId),
      },
    };
  },
  replies: {
    ok: { settled: 'int', feedFrom: 'str', feedTo: 'str', emitSeq: 'int', chunkMax: 'str', chunkOverlap: 'str', counts: 'counts' },
    repeated: {},
    unstaged: {},
    ...REFUSALS,
  },
});

/** One source of a batch of texts: which, and under which run. */
export interface BatchedSource {
  documentId: string;
  run: number;
}

/**
 * Worker: claims a batch's text sources for one attempt, each as
 * {@link startSourceScript} claims one; replies with each one's result and
 * record after its claim, and the knowledge base's chunking settings. With
 * `workspaceId`, a knowledge base of another workspace is 'gone'.
 */
export const startTextsScript = defineScript({
  name: 'kbStartTexts',
  file: 'startTexts',
  lifecycle: { sources: 'start' },
  keys: ['meta', 'active'],
  build: (i: { kbId: string; sources: readonly BatchedSource[]; workspaceId?: string } & TransitionAt, k) => ({
    keys: { meta: k.kb(i.kbId), active: k.active(i.kbId) },
    args: {
      sources: i.sources.map((s) => ({ documentId: s.documentId, run: String(s.run) })),
      claim: i.claim ?? '',
      now: i.now,
      nowMs: Date.parse(i.now),
      workspaceId: i.workspaceId ?? '',
      recordPrefix: k.sourcePrefix(i.kbId),
    },
  }),
  replies: { ok: { chunkMax: 'str', chunkOverlap: 'str', claims: 'rest' }, gone: {} },
});

/** One text's outcome in a batch's finish: what {@link FinishArgs} holds, never staged. */
export type BatchedFinish = BatchedSource & Omit<FinishArgs, 'staged' | 'unchanged'>;

/**
 * Worker: records the outcomes of a batch's texts, each once as
 * {@link finishSourceScript} records one, with one revision, settle and
 * knowledge_base.changed for all of them; replies each one's result.
 */
export const finishTextsScript = defineScript({
  name: 'kbFinishTexts',
  file: 'finishTexts',
  lifecycle: { sources: 'finish' },
  keys: ['meta', 'active'],
  build: (i: { kbId: string; sources: readonly BatchedFinish[] } & TransitionAt, k) => ({
    keys: { meta: k.kb(i.kbId), active: k.active(i.kbId) },
    args: {
      claim: i.claim ?? '',
      now: i.now,
      nowMs: Date.parse(i.now),
      prefixes: k.sourceKeyPrefixes(i.kbId),
      sources: i.sources.map((s) => {
        const ready = s.status === 'ready';
        const ref = { kbId: i.kbId, documentId: s.documentId, run: s.run };
        return {
          documentId: s.documentId,
          run: String(s.run),
          status: s.status,
          fields: s.fields,
          ...(ready && { text: s.text, chunks: s.chunks, feedChunks: feedEntries(i.kbId, s.documentId, s.markdown, s.chunks) }),
          ...(ready && s.markdown !== s.text && { markdown: s.markdown }),
          keepBlobSeconds: s.keepBlobSeconds,
          event: sourceEndEvent(ref, s.status, s.error),
        };
      }),
      feed: feedArgs(k, i.kbId),
      outbox: outboxArgs(k, i.kbId),
    },
  }),
  replies: { ok: { settled: 'int', feedFrom: 'str', feedTo: 'str', chunkMax: 'str', chunkOverlap: 'str', results: 'rest' } },
});

/** Worker: how far a processing source's extraction has got, written only while this run (and attempt) owns it. */
export const setSourceProgressScript = defineScript({
  name: 'kbSetSourceProgress',
  file: 'setSourceProgress',
  keys: ['meta', 'record'],
  build: (i: SourceRef & { progress: SourceProgress; claim?: string }, k) => ({
    keys: { meta: k.kb(i.kbId), record: k.source(i.kbId, i.documentId) },
    args: { run: String(i.run), claim: i.claim ?? '', progress: JSON.stringify(i.progress) },
  }),
  replies: { ok: {}, ...REFUSALS, not_processing: {} },
});
