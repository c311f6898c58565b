import type { Config } from '../../shared/config.js';
import { ConflictError, NotFoundError } from '../../shared/errors.js';
import type { FeedRange } from '../../shared/feed/cursor.js';
import { newDocumentId } from '../../shared/ids.js';
import { sourceJobInfo, type DiscoverSiteJob, type SourceQueue } from '../../shared/jobs.js';
import type { Logger } from '../../shared/logger.js';
import { requeueSource } from '../../shared/sources/requeue.js';
import { sourceFingerprint, type NewSource, type StoredSource } from '../../shared/store/kb-records.js';
import type { KbStore } from '../../shared/store/kb-store.js';
import type { SiteOutcome, StoredSite } from '../../shared/store/site-records.js';
import type { SiteFinish, SiteStore } from '../../shared/store/site-store.js';
import { discoverSite, type DiscoveryFetch, type DiscoveryResult } from './discover.js';
import { pageKey } from './site-url.js';

/** Pages committed together: extraction of the first ones starts while discovery goes on. */
const COMMIT_BATCH = 25;
/** Discoveries in a row that must miss a page before it is removed. */
export const MISSES_TO_REMOVE = 2;

export interface SiteSyncDeps {
  config: Config;
  kbs: KbStore;
  sites: SiteStore;
  queue: SourceQueue;
  logger: Logger;
  /** A fetch for the site's discovery, refusing redirects off its origin (see worker/main.ts). */
  fetchFor(site: StoredSite): DiscoveryFetch;
  sleep?: (ms: number) => Promise<void>;
}

/** What one run of a site's discovery did. */
export interface SiteSyncResult {
  outcome: SiteOutcome;
  finish: SiteFinish;
  /** The change feed range the pages it removed wrote (their chunk.deleted), when they had chunks. */
  changes?: FeedRange;
}

/** The site went away (deleted, or restarted under a newer run) while it was being discovered. */
class SiteGone extends Error {}

/**
 * One discovery run of a site, end to end: its pages are found
 * ({@link discoverSite}) and added as URL sources carrying its `siteId` in
 * batches (each guarded by the site's run, so a deleted or restarted site
 * gets no more pages), their first extraction queued at once. On a later run
 * the pages found again are fetched again, and a page missed
 * {@link MISSES_TO_REMOVE} runs in a row (not in the sitemap, not linked, or
 * answering 404/410) is removed; a run cut short by a cap counts only 404/410
 * as misses. Throws what the discovery throws; the caller ends the site
 * `failed` on a permanent error or the last attempt ({@link failSite}).
 */
export async function syncSite(deps: SiteSyncDeps, job: DiscoverSiteJob, site: StoredSite): Promise<SiteSyncResult | 'gone'> {
  const { workspaceId, kbId, siteId, run } = job;
  const found = await deps.kbs.get(kbId);
  if (!found) return 'gone';
  const existing = new Map<string, StoredSource>();
  for (const s of found.sources) if (s.siteId === siteId) existing.set(sourceFingerprint(s), s);
  const seenAgain = new Set<string>();
  let batch: NewSource[] = [];
  let added = 0;

  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const sources = batch;
    batch = [];
    let committed: NewSource[];
    try {
      committed = await deps.kbs.addSources({ workspaceId, kbId, sources, now: new Date().toISOString(), siteGuard: { siteId, run } });
    } catch (err) {
      if (err instanceof NotFoundError) throw new SiteGone();
      throw err;
    }
    added += committed.length;
    await deps.queue.enqueue(committed.map((s) => ({ workspaceId, kbId, documentId: s.documentId, run: 1, ...sourceJobInfo(s) })));
  };

  let result: DiscoveryResult;
  try {
    result = await discoverSite({
      url: site.url,
      maxPages: site.maxPages,
      maxDepth: site.maxDepth,
      include: site.include,
      exclude: site.exclude,
      sitemap: site.sitemap,
      agent: agentToken(deps.config.URL_FETCH_USER_AGENT),
      fetch: deps.fetchFor(site),
      ...(deps.sleep && { sleep: deps.sleep }),
      onPage: async (url) => {
        const fingerprint = sourceFingerprint({ type: 'url', content: url.href });
        const known = existing.get(fingerprint);
        if (known) return void seenAgain.add(known.documentId);
        batch.push({ documentId: newDocumentId(), type: 'url', content: url.href, fingerprint, siteId });
        if (batch.length >= COMMIT_BATCH) await flush();
      },
    });
    await flush();
  } catch (err) {
    if (err instanceof SiteGone) return 'gone';
    throw err;
  }

  const now = () => new Date().toISOString();
  let removed = 0;
  let changes: FeedRange | undefined;
  for (const source of existing.values()) {
    const target = { workspaceId, kbId, documentId: source.documentId };
    if (seenAgain.has(source.documentId)) {
      if (run > 1) await requeueSource(deps, target, 'refresh', now()).catch(ignoreMoved);
      continue;
    }
    const gone = result.gone.has(pageKey(new URL(source.content)));
    if (result.truncated && !gone) continue;
    const misses = await deps.sites.addMiss(kbId, siteId, source.documentId);
    if (misses < MISSES_TO_REMOVE) continue;
    const wrote = (await deps.kbs.deleteSource(target, now()).catch(ignoreMoved))?.changes;
    if (wrote) changes = { from: changes?.from ?? wrote.from, to: wrote.to };
    await deps.sites.clearMisses(kbId, siteId, [source.documentId]);
    removed += 1;
  }
  await deps.sites.clearMisses(kbId, siteId, [...seenAgain]);
  const outcome: SiteOutcome = {
    state: 'done',
    pagesFound: result.pagesFound,
    pagesAdded: existing.size - removed + added,
    truncated: result.truncated,
    warnings: result.warnings,
  };
  deps.logger.info({ kbId, siteId, run, ...outcome, removed, refreshed: run > 1 ? seenAgain.size : 0 }, 'site discovered');
  return { outcome, finish: await deps.sites.finish(kbId, siteId, run, outcome, now()), ...(changes && { changes }) };
}

/** Ends a site's discovery `failed` with the error a user sees. */
export async function failSite(deps: Pick<SiteSyncDeps, 'sites'>, job: DiscoverSiteJob, error: { code: string; message: string }): Promise<SiteSyncResult> {
  const outcome: SiteOutcome = { state: 'failed', pagesFound: 0, pagesAdded: 0, truncated: false, error };
  return { outcome, finish: await deps.sites.finish(job.kbId, job.siteId, job.run, outcome, new Date().toISOString()) };
}

/** The robots.txt product token of a User-Agent: its first word before any `/` (`kb-ingest`). */
export function agentToken(userAgent: string): string {
  return userAgent.split(/[\s/]/)[0] || 'kb-ingest';
}

/** A page started, refreshed or deleted meanwhile is left as it is. */
function ignoreMoved(err: unknown): void {
  if (!(err instanceof ConflictError) && !(err instanceof NotFoundError)) throw err;
}
