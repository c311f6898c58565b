import { feedArgs, type FeedEntry } from '../../feed/feed-entries.js';
import type { Metadata } from '../../schemas/metadata.js';
import type { SourceTarget } from '../../sources/source-ref.js';
import { outboxArgs } from '../outbox-events.js';
import { defineScript } from './script.js';

/** Replaces one source's metadata (an empty object removes it); when it changes, marks the source's chunks to appear again in the feed. */
export const setSourceMetadataScript = defineScript({
  name: 'kbSetSourceMetadata',
  file: 'setSourceMetadata',
  keys: ['meta', 'record', 'chunkIds', 'pending'],
  build: (i: SourceTarget & { metadata: Metadata; now: string }, k) => ({
    keys: { meta: k.kb(i.kbId), record: k.source(i.kbId, i.documentId), chunkIds: k.sourceKeys(i.kbId, i.documentId).chunkIds, pending: k.metadataEmits(i.kbId) },
    args: {
      workspaceId: i.workspaceId,
      documentId: i.documentId,
      metadata: Object.keys(i.metadata).length > 0 ? JSON.stringify(i.metadata) : '',
      now: i.now,
      nowMs: Date.parse(i.now),
    },
  }),
  replies: { ok: { seq: 'int' }, missing: {}, forbidden: {}, missing_source: {} },
});

/** One bounded batch of a metadata change's chunk.upserted events. */
export const emitMetadataScript = defineScript({
  name: 'kbEmitMetadata',
  file: 'emitMetadata',
  keys: ['meta', 'record', 'chunkIds', 'pending'],
  build: (i: { kbId: string; documentId: string; seq: number; start: number; total: number; entries: FeedEntry[] }, k) => ({
    keys: { meta: k.kb(i.kbId), record: k.source(i.kbId, i.documentId), chunkIds: k.sourceKeys(i.kbId, i.documentId).chunkIds, pending: k.metadataEmits(i.kbId) },
    args: { documentId: i.documentId, seq: i.seq, start: i.start, total: i.total, nowMs: Date.now(), entries: i.entries, feed: feedArgs(k, i.kbId), outbox: outboxArgs(k, i.kbId) },
  }),
  replies: { ok: { feedFrom: 'str', feedTo: 'str', next: 'int' }, missing_source: {}, superseded: {}, moved: {} },
});
