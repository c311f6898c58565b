import type { Metadata } from '../../schemas/metadata.js';
import type { SourceTarget } from '../../sources/source-ref.js';
import { defineScript } from './script.js';

/** Replaces one source's metadata; an empty object removes it. */
export const setSourceMetadataScript = defineScript({
  name: 'kbSetSourceMetadata',
  file: 'setSourceMetadata',
  keys: ['meta', 'record'],
  build: (i: SourceTarget & { metadata: Metadata; now: string }, k) => ({
    keys: { meta: k.kb(i.kbId), record: k.source(i.kbId, i.documentId) },
    args: { workspaceId: i.workspaceId, metadata: Object.keys(i.metadata).length > 0 ? JSON.stringify(i.metadata) : '', now: i.now },
  }),
  replies: { ok: {}, missing: {}, forbidden: {}, missing_source: {} },
});
