import type { SourceTarget } from '../../sources/source-ref.js';
import { feedArgs } from '../../feed/feed-entries.js';
import { outboxArgs } from '../outbox-events.js';
import { defineScript } from './script.js';

/** The revision an If-Match requires, as the string the meta hash holds; omitted when none is required. */
const revArg = (rev: number | undefined): string | undefined => (rev === undefined ? undefined : String(rev));

/**
 * Deletes a knowledge base at once for every reader; its sources' keys and
 * legacy search terms are handed to {@link sweepKbScript}.
 */
export const deleteKbScript = defineScript({
  name: 'kbDeleteKb',
  file: 'deleteKb',
  keys: ['meta', 'sourceIds', 'active', 'fingerprints', 'sites', 'metaEmits', 'sweepSources', 'sweepTerms', 'searchTerms', 'searchState', 'searchDocs'],
  build: (i: { workspaceId: string; kbId: string; ifRev?: number | undefined }, k) => ({
    keys: {
      ...k.sourceIndex(i.kbId),
      sites: k.sites(i.kbId),
      metaEmits: k.metadataEmits(i.kbId),
      sweepSources: k.sweepSources(i.kbId),
      sweepTerms: k.sweepTerms(i.kbId),
      searchTerms: k.searchTerms(i.kbId),
      searchState: k.searchState(i.kbId),
      searchDocs: k.searchDocs(i.kbId),
    },
    args: {
      workspaceId: i.workspaceId,
      sitePrefix: k.sitePrefix(i.kbId),
      ifRev: revArg(i.ifRev),
      feed: feedArgs(k, i.kbId),
      feedTtl: Math.ceil(k.changeRetention.retentionMs / 1000),
      outbox: outboxArgs(k, i.kbId, i.workspaceId),
    },
  }),
  replies: { ok: { feedFrom: 'str', feedTo: 'str', sweep: 'int' }, missing: {}, forbidden: {}, precondition_failed: { rev: 'int' } },
});

/** Sources a sweep batch removes the keys of (eight keys each), and legacy search terms. */
export const SWEEP_BATCH = 100;

/** Removes one batch of a deleted knowledge base's leftover keys. */
export const sweepKbScript = defineScript({
  name: 'kbSweepKb',
  file: 'sweepKb',
  keys: ['sweepSources', 'sweepTerms'],
  build: (i: { kbId: string; count?: number }, k) => ({
    keys: { sweepSources: k.sweepSources(i.kbId), sweepTerms: k.sweepTerms(i.kbId) },
    args: { prefixes: k.sourceKeyPrefixes(i.kbId), postings: k.searchPostingsPrefix(i.kbId), count: i.count ?? SWEEP_BATCH },
  }),
  replies: { ok: { left: 'int' } },
});

/** Deletes one source with every key it owns. */
export const deleteSourceScript = defineScript({
  name: 'kbDeleteSource',
  file: 'deleteSource',
  lifecycle: { sources: 'delete' },
  keys: ['meta', 'sourceIds', 'active', 'fingerprints', 'record', 'text', 'blob', 'markdown', 'chunks', 'chunkIds'],
  build: (i: SourceTarget & { now: string; ifRev?: number | undefined }, k) => ({
    keys: {
      ...k.sourceIndex(i.kbId),
      ...k.sourceKeys(i.kbId, i.documentId),
    },
    args: { workspaceId: i.workspaceId, documentId: i.documentId, now: i.now, ifRev: revArg(i.ifRev), feed: feedArgs(k, i.kbId), outbox: outboxArgs(k, i.kbId) },
  }),
  replies: { ok: { feedFrom: 'str', feedTo: 'str', settled: 'int', counts: 'counts' }, missing: {}, forbidden: {}, missing_source: {}, precondition_failed: { rev: 'int' } },
});
