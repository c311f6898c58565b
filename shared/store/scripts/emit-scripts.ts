import { feedArgs } from '../../feed/feed-entries.js';
import { outboxArgs } from '../outbox-events.js';
import { defineScript } from './script.js';

/** Where a chunk emission stands: its write's sequence number, its phase, and the entry index or scan cursor. */
export interface EmitMarker {
  seq: number;
  phase: 'u' | 'd';
  at: string;
}

/** One bounded batch of the feed events of a large write of a source's chunks (see emitChunks.lua). */
export const emitChunksScript = defineScript({
  name: 'kbEmitChunks',
  file: 'emitChunks',
  keys: ['meta', 'record', 'chunkIds', 'emitList', 'emitSeen', 'pending'],
  build: (i: { kbId: string; documentId: string; marker: EmitMarker; count: number; maxBytes: number }, k) => {
    const { record, chunkIds, emitList, emitSeen } = k.sourceKeys(i.kbId, i.documentId);
    return {
      keys: { meta: k.kb(i.kbId), record, chunkIds, emitList, emitSeen, pending: k.metadataEmits(i.kbId) },
      args: {
        documentId: i.documentId,
        seq: i.marker.seq,
        phase: i.marker.phase,
        // An entry index is a number in the marker; a scan cursor stays a string (it may pass 2^53).
        at: i.marker.phase === 'u' ? Number(i.marker.at) : i.marker.at,
        count: i.count,
        maxBytes: i.maxBytes,
        nowMs: Date.now(),
        feed: feedArgs(k, i.kbId),
        outbox: outboxArgs(k, i.kbId),
      },
    };
  },
  replies: { ok: { feedFrom: 'str', feedTo: 'str', next: 'str' }, missing_source: {}, superseded: {} },
});
