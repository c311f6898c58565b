import type { SourceTarget } from '../../sources/source-ref.js';
import { defineScript } from './script.js';

/** Deletes a knowledge base with every source and every key a source owns. */
export const deleteKbScript = defineScript({
  name: 'kbDeleteKb',
  file: 'deleteKb',
  keys: ['meta', 'sourceIds', 'active', 'fingerprints', 'sites'],
  build: (i: { workspaceId: string; kbId: string }, k) => ({
    keys: { meta: k.kb(i.kbId), sourceIds: k.sourceIds(i.kbId), active: k.active(i.kbId), fingerprints: k.fingerprints(i.kbId), sites: k.sites(i.kbId) },
    args: { workspaceId: i.workspaceId, prefixes: k.sourceKeyPrefixes(i.kbId), sitePrefix: k.sitePrefix(i.kbId) },
  }),
  replies: { ok: {}, missing: {}, forbidden: {} },
});

/** Deletes one source with every key it owns. */
export const deleteSourceScript = defineScript({
  name: 'kbDeleteSource',
  file: 'deleteSource',
  keys: ['meta', 'sourceIds', 'active', 'fingerprints', 'record', 'text', 'blob', 'markdown', 'chunks'],
  build: (i: SourceTarget & { now: string }, k) => ({
    keys: {
      meta: k.kb(i.kbId),
      sourceIds: k.sourceIds(i.kbId),
      active: k.active(i.kbId),
      fingerprints: k.fingerprints(i.kbId),
      ...k.sourceKeys(i.kbId, i.documentId),
    },
    args: { workspaceId: i.workspaceId, documentId: i.documentId, now: i.now },
  }),
  replies: { ok: {}, missing: {}, forbidden: {}, missing_source: {} },
});
