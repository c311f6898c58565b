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
      siteSweeps: k.siteSweeps(i.kbId),
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

/**
 * Chunk.deleted events a source's delete writes itself; a source with more
 * chunks has them written afterwards by {@link dropChunksScript}, this many a
 * call, so neither script's time grows with the source.
 */
export const DROP_BATCH = 256;

/** How long a deleted source's chunk ids wait at most for their chunk.deleted events (the reconciler writes them within minutes). */
export const DROP_TTL_SECONDS = 86_400;

/** Deletes one source with every key it owns; a source of many chunks leaves their chunk.deleted events to dropChunks. */
export const deleteSourceScript = defineScript({
  name: 'kbDeleteSource',
  file: 'deleteSource',
  lifecycle: { sources: 'delete' },
  keys: ['meta', 'sourceIds', 'active', 'fingerprints', 'record', 'text', 'blob', 'markdown', 'chunks', 'chunkIds', 'dropIds', 'emits'],
  build: (i: SourceTarget & { now: string; ifRev?: number | undefined }, k) => ({
    keys: {
      ...k.sourceIndex(i.kbId),
      ...k.sourceKeys(i.kbId, i.documentId),
      emits: k.metadataEmits(i.kbId),
    },
    args: {
      workspaceId: i.workspaceId,
      documentId: i.documentId,
      now: i.now,
      nowMs: Date.parse(i.now),
      ifRev: revArg(i.ifRev),
      dropInline: DROP_BATCH,
      dropTtl: DROP_TTL_SECONDS,
      feed: feedArgs(k, i.kbId),
      outbox: outboxArgs(k, i.kbId),
    },
  }),
  replies: {
    ok: { feedFrom: 'str', feedTo: 'str', settled: 'int', dropping: 'int', counts: 'counts' },
    missing: {},
    forbidden: {},
    missing_source: {},
    precondition_failed: { rev: 'int' },
  },
});

/** Writes one bounded batch of a deleted source's chunk.deleted events (see dropChunks.lua). */
export const dropChunksScript = defineScript({
  name: 'kbDropChunks',
  file: 'dropChunks',
  keys: ['meta', 'record', 'dropIds', 'emits'],
  build: (i: { kbId: string; documentId: string; count?: number }, k) => {
    const { record, dropIds } = k.sourceKeys(i.kbId, i.documentId);
    return {
      keys: { meta: k.kb(i.kbId), record, dropIds, emits: k.metadataEmits(i.kbId) },
      args: { documentId: i.documentId, count: i.count ?? DROP_BATCH, feed: feedArgs(k, i.kbId), outbox: outboxArgs(k, i.kbId) },
    };
  },
  replies: { ok: { feedFrom: 'str', feedTo: 'str', left: 'int' } },
});
