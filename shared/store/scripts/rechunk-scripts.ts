import { chunkingTag, type ChunkSettings } from '../../chunking/chunk-settings.js';
import type { SourceRef } from '../../sources/source-ref.js';
import { feedArgs, feedEntries } from '../../feed/feed-entries.js';
import { outboxArgs } from '../outbox-events.js';
import type { StagedChunks } from '../staging.js';
import { defineScript } from './script.js';

/** A re-chunk of one ready source: the run whose Markdown was cut, and the result. */
export interface RechunkInput extends SourceRef {
  /** The settings the chunks were cut with; written only while the knowledge base still has them. */
  chunking: ChunkSettings;
  defaultChunking: ChunkSettings;
  /** Chunk entries, each a JSON string. */
  chunks: string[];
  /** The Markdown they were cut from (for the chunks' text in the change feed). */
  markdown: string;
  now: string;
}

/** Worker: replaces a ready source's chunks, fenced by its run and its knowledge base's settings. */
export const rechunkSourceScript = defineScript({
  name: 'kbRechunkSource',
  file: 'rechunkSource',
  keys: ['meta', 'record', 'chunks', 'chunkIds', 'text', 'markdown', 'stagedChunks', 'stagedFeed', 'emitList', 'emitSeen', 'emits'],
  build: (i: RechunkInput & { staged?: StagedChunks | undefined }, k) => {
    const { record, chunks, chunkIds, text, markdown, emitList, emitSeen } = k.sourceKeys(i.kbId, i.documentId);
    const nonce = i.staged?.nonce ?? '-';
    return {
      keys: {
        meta: k.kb(i.kbId), record, chunks, chunkIds, text, markdown,
        stagedChunks: k.staged(i.kbId, i.documentId, nonce, 'chunks'), stagedFeed: k.staged(i.kbId, i.documentId, nonce, 'feed'),
        emitList, emitSeen, emits: k.metadataEmits(i.kbId),
      },
      args: {
        documentId: i.documentId,
        run: String(i.run),
        chunking: chunkingTag(i.chunking),
        defaultChunking: chunkingTag(i.defaultChunking),
        now: i.now,
        nowMs: Date.parse(i.now),
        ...(i.staged
          ? { staged: { chunks: i.staged.chunks.size, feed: i.staged.feed.size, feedBytes: i.staged.feedBytes, chunkBytes: i.staged.chunkBytes } }
          : { chunks: i.chunks, feedChunks: feedEntries(i.kbId, i.documentId, i.markdown, i.chunks) }),
        feed: feedArgs(k, i.kbId),
      },
    };
  },
  replies: { ok: { feedFrom: 'str', feedTo: 'str', emitSeq: 'int' }, unstaged: {}, gone: {}, not_ready: {}, stale: {} },
});

/** Worker: settles a knowledge base whose re-chunk ended, when nothing else is in flight. */
export const settleKbScript = defineScript({
  name: 'kbSettleKb',
  file: 'settleKb',
  keys: ['meta'],
  build: (i: { workspaceId: string; kbId: string; changes?: { from: string; to: string } | undefined; settle: boolean }, k) => ({
    keys: { meta: k.kb(i.kbId) },
    args: { workspaceId: i.workspaceId, ...(i.changes && { changes: i.changes }), settle: i.settle, outbox: outboxArgs(k, i.kbId) },
  }),
  replies: { ok: { settled: 'int', counts: 'counts' }, missing: {}, forbidden: {} },
});
