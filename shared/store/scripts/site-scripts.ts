import { feedArgs } from '../../feed/feed-entries.js';
import { outboxArgs, type OutboxEvent } from '../outbox-events.js';
import type { SiteState } from '../../schemas/site.js';
import { DROP_BATCH, DROP_TTL_SECONDS } from './delete-scripts.js';
import { defineScript } from './script.js';

/** The end of one discovery run of a site. */
export interface FinishSiteInput {
  kbId: string;
  siteId: string;
  run: number;
  now: string;
  /** The state the discovery ends in. */
  state: Exclude<SiteState, 'discovering'>;
  fields: Record<string, string>;
  /** Its site.discovered, appended when this end is written. */
  event: OutboxEvent;
}

/** Records the end of a site's discovery once; settles the knowledge base when nothing is left to do. */
export const finishSiteScript = defineScript({
  name: 'kbFinishSite',
  file: 'finishSite',
  lifecycle: { sites: 'finish' },
  keys: ['meta', 'active', 'site'],
  build: (i: FinishSiteInput, k) => ({
    keys: { meta: k.kb(i.kbId), active: k.active(i.kbId), site: k.site(i.kbId, i.siteId) },
    args: { run: i.run, now: i.now, state: i.state, fields: i.fields, event: i.event, outbox: outboxArgs(k, i.kbId) },
  }),
  replies: { ok: { settled: 'int', counts: 'counts' }, stale: {} },
});

/** A user's or the scheduler's new discovery of a site. */
export interface SiteTarget {
  workspaceId: string;
  kbId: string;
  siteId: string;
}

/** Puts a site back to discovering under a new run. */
export const restartSiteScript = defineScript({
  name: 'kbRestartSite',
  file: 'restartSite',
  lifecycle: { sites: 'restart' },
  keys: ['meta', 'site'],
  build: (i: SiteTarget & { now: string }, k) => ({
    keys: { meta: k.kb(i.kbId), site: k.site(i.kbId, i.siteId) },
    args: { workspaceId: i.workspaceId, now: i.now },
  }),
  replies: { ok: { run: 'int', record: 'rest' }, missing: {}, forbidden: {}, missing_site: {}, busy: { record: 'rest' } },
});

/** Pages one call of a site's delete deletes at most (see deleteSite.lua). */
export const SITE_SWEEP_PAGES = 100;

/** Deletes a site at once, then its pages in bounded steps (`sweep`: a later step). */
export const deleteSiteScript = defineScript({
  name: 'kbDeleteSite',
  file: 'deleteSite',
  lifecycle: { sources: 'delete', sites: 'delete' },
  keys: ['meta', 'sourceIds', 'active', 'fingerprints', 'sites', 'site', 'misses', 'emits', 'sweeps'],
  build: (i: SiteTarget & { now: string; sweep?: boolean; pageMax?: number }, k) => ({
    keys: {
      ...k.sourceIndex(i.kbId),
      sites: k.sites(i.kbId),
      site: k.site(i.kbId, i.siteId),
      misses: k.siteMisses(i.kbId, i.siteId),
      emits: k.metadataEmits(i.kbId),
      sweeps: k.siteSweeps(i.kbId),
    },
    args: {
      workspaceId: i.workspaceId,
      siteId: i.siteId,
      sweep: i.sweep === true,
      now: i.now,
      nowMs: Date.parse(i.now),
      pageMax: i.pageMax ?? SITE_SWEEP_PAGES,
      dropInline: DROP_BATCH,
      dropTtl: DROP_TTL_SECONDS,
      prefixes: k.sourceKeyPrefixes(i.kbId),
      feed: feedArgs(k, i.kbId),
      outbox: outboxArgs(k, i.kbId),
    },
  }),
  replies: { ok: { removed: 'int', feedFrom: 'str', feedTo: 'str', done: 'int', dropping: 'rest' }, missing: {}, forbidden: {}, missing_site: {} },
});

/** Worker: takes pages of the workspace's discovery budget for one holder, unless that would pass the cap on pages or on holders. */
export const reserveCrawlBudgetScript = defineScript({
  name: 'siteReserveBudget',
  file: 'reserveCrawlBudget',
  keys: ['budget'],
  build: (i: { workspaceId: string; holder: string; pages: number; cap: number; maxHolders: number; ttlSeconds: number }, k) => ({
    keys: { budget: k.crawlBudget(i.workspaceId) },
    args: { holder: i.holder, pages: i.pages, cap: i.cap, maxHolders: i.maxHolders, ttlSeconds: i.ttlSeconds },
  }),
  replies: { ok: {}, full: { holders: 'rest' } },
});

/** Worker: a site's page that landed on another URL of the site takes that URL's fingerprint, or becomes an alias of the source holding it. */
export const claimLandedUrlScript = defineScript({
  name: 'siteClaimLandedUrl',
  file: 'claimLandedUrl',
  keys: ['fingerprints', 'record'],
  build: (i: { kbId: string; documentId: string; listed: string; landed: string }, k) => ({
    keys: { fingerprints: k.fingerprints(i.kbId), record: k.sourceKeys(i.kbId, i.documentId).record },
    args: { documentId: i.documentId, listed: i.listed, landed: i.landed, recordPrefix: k.sourceKeyPrefixes(i.kbId).record },
  }),
  replies: { own: {}, alias: { owner: 'str' }, missing: {} },
});
