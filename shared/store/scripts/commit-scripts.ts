import { chunkingTag, DEFAULT_CHUNK_SETTINGS, type ChunkSettings } from '../../chunking/chunk-settings.js';
import type { NewSource, ReusedExtraction } from '../kb-records.js';
import { newSourceFields } from '../kb-records.js';
import { MAX_SITES_PER_KB } from '../../schemas/site.js';
import type { NewSite } from '../site-records.js';
import { siteFields } from '../site-records.js';
import { feedArgs, feedEntries } from '../../feed/feed-entries.js';
import { defineScript } from './script.js';

/** What a commit adds: to a new knowledge base (`create`) or to an existing one. */
export interface CommitInput {
  workspaceId: string;
  kbId: string;
  create: boolean;
  /** The name of a new knowledge base, or a new name for an existing one. */
  name?: string;
  autoRefreshHours?: number;
  /** The knowledge base's chunking settings from now on (set on create, and on a change of them). */
  chunking?: ChunkSettings;
  /** The deployment's settings, which apply to a knowledge base that never chose any; default DEFAULT_CHUNK_SETTINGS. */
  defaultChunking?: ChunkSettings;
  /** Change nothing unless the knowledge base is at this revision. */
  ifRev?: number;
  sources: NewSource[];
  now: string;
  /** How long staged bytes are kept at most (seconds). */
  blobTtlSeconds: number;
  /** New sites, recorded `discovering`; refused past {@link MAX_SITES_PER_KB} in the knowledge base. */
  sites?: NewSite[];
  /** A discovery's pages: added only while the site is at this run (not deleted, not restarted). */
  siteGuard?: { siteId: string; run: number };
  /** The quota of sources per knowledge base (none: unlimited), checked in the commit itself. */
  maxSources?: number;
  /** Past `maxSources`, add the sources that fit and leave the rest out (a site's pages) rather than refuse them all. */
  partial?: boolean;
}

/** A reused extraction as the script takes it: its values with their feed entries, or the keys they were staged in. */
function reuseArgs(kbId: string, documentId: string, reuse: ReusedExtraction) {
  const { staged, ...values } = reuse;
  if (!staged) return { ...values, feed: feedEntries(kbId, documentId, values.markdown, values.chunks) };
  return { fields: reuse.fields, staged: { text: staged.text, markdown: staged.markdown, chunks: staged.chunks, feed: staged.feed, feedBytes: staged.feedBytes, extractedBytes: staged.extractedBytes } };
}

/** Adds sources to a knowledge base (creating it when asked), all or nothing. */
export const commitSourcesScript = defineScript({
  name: 'kbCommitSources',
  file: 'commitSources',
  lifecycle: { sources: 'commit', sites: 'commit' },
  keys: ['meta', 'sourceIds', 'active', 'fingerprints', 'sites', 'emits'],
  build: (i: CommitInput, k) => ({
    keys: {
      ...k.sourceIndex(i.kbId),
      sites: k.sites(i.kbId),
      emits: k.metadataEmits(i.kbId),
    },
    args: {
      create: i.create,
      kbId: i.kbId,
      workspaceId: i.workspaceId,
      name: i.name,
      autoRefreshHours: i.autoRefreshHours === undefined ? undefined : String(i.autoRefreshHours),
      ifRev: i.ifRev === undefined ? undefined : String(i.ifRev),
      chunkMaxTokens: i.chunking ? String(i.chunking.maxTokens) : undefined,
      chunkOverlapTokens: i.chunking ? String(i.chunking.overlapTokens) : undefined,
      defaultChunking: chunkingTag(i.defaultChunking ?? DEFAULT_CHUNK_SETTINGS),
      now: i.now,
      nowMs: Date.parse(i.now),
      ttl: i.blobTtlSeconds,
      prefixes: k.sourceKeyPrefixes(i.kbId),
      sources: i.sources.map((s) => ({
        stageKey: s.stageKey,
        fields: newSourceFields(s, i.now),
        reuse: s.reuse && reuseArgs(i.kbId, s.documentId, s.reuse),
      })),
      feed: feedArgs(k, i.kbId),
      sites: i.sites?.map((s) => ({ key: k.site(i.kbId, s.siteId), id: s.siteId, fields: siteFields(s, i.now) })),
      maxSites: MAX_SITES_PER_KB,
      siteGuard: i.siteGuard && { key: k.site(i.kbId, i.siteGuard.siteId), run: String(i.siteGuard.run) },
      maxSources: i.maxSources,
      partial: i.partial,
    },
  }),
  replies: {
    ok: { rev: 'int', left: 'int', skipped: 'rest' },
    over_quota: { would: 'int' },
    exists: {},
    missing: {},
    forbidden: {},
    stage_missing: {},
    precondition_failed: { rev: 'int' },
    too_many_sites: {},
    site_gone: {},
  },
});
