import { feedArgs, type FeedEntry } from '../../feed/feed-entries.js';
import type { Metadata } from '../../schemas/metadata.js';
import type { SourceTarget } from '../../sources/source-ref.js';
import { defineScript } from './script.js';

/** Replaces one source's metadata (an empty object removes it); its chunks in the feed appear again when it changes. */
export const setSourceMetadataScript = defineScript({
  name: 'kbSetSourceMetadata',
  file: 'setSourceMetadata',
  keys: ['meta', 'record', 'chunkIds'],
  build: (i: SourceTarget & { metadata: Metadata; now: string; entries: FeedEntry[] }, k) => ({
    keys: { meta: k.kb(i.kbId), record: k.source(i.kbId, i.documentId), chunkIds: k.sourceKeys(i.kbId, i.documentId).chunkIds },
    args: {
      workspaceId: i.workspaceId,
      documentId: i.documentId,
      metadata: Object.keys(i.metadata).length > 0 ? JSON.stringify(i.metadata) : '',
      now: i.now,
      entries: i.entries,
      feed: feedArgs(k, i.kbId),
    },
  }),
  replies: { ok: { feedFrom: 'str', feedTo: 'str' }, missing: {}, forbidden: {}, missing_source: {}, moved: {} },
});
