import type { Config } from '../../shared/runtime/config.js';
import { ConflictError, NotFoundError } from '../../shared/errors.js';
import type { FeedRange } from '../../shared/feed/cursor.js';
import { newDocumentId } from '../../shared/ids.js';
import { sourceJobInfo, type DiscoverSiteJob, type SourceQueue } from '../../shared/queue/jobs.js';
import type { Logger } from '../../shared/runtime/logger.js';
import { QuotaGuard } from '../../shared/quotas.js';
import type { SiteTruncatedReason } from '../../shared/schemas/site.js';
import { requeueSource } from '../../shared/verbs/requeue.js';
import { sourceFingerprint, type NewSource, type StoredSource } from '../../shared/store/kb-records.js';
import type { KbStore } from '../../shared/store/kb-store.js';
import type { QuotaStore } from '../../shared/store/quota-store.js';
import type { SiteOutcome, StoredSite } from '../../shared/store/site-records.js';
import type { SiteFinish, SiteStore } from '../../shared/store/site-store.js';
import { discoveryStep, type DiscoveryFetch, type DiscoveryResult, type StepBudget, type StepOutcome } from './discover.js';
import { keyDigest, type DiscoveryState } from './discovery-state.js';
import { addSitePages } from './site-pages.js';
import { pageKey } from './site-url.js';

/** Pages committed together: extraction of the first ones starts while discovery goes on. */
const COMMIT_BATCH = 25;
/** Discoveries in a row that must miss a page before it is removed. */
export const MISSES_TO_REMOVE = 2;

export interface SiteSyncDeps {
  config: Config;
  kbs: KbStore;
  sites: SiteStore;
  /** The workspace quotas a site's pages count against; without it pages are added unchecked. */
  quotas?: QuotaStore;
  queue: SourceQueue;
  logger: Logger;
  /** A fetch for the site's discovery, refusing redirects off its origin (see worker/main.ts). */
  fetchFor(site: StoredSite): DiscoveryFetch;
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

/** A quota left no room for the site's next page: the discovery stops there. */
class SiteFull extends Error {}

/** A step of a site's discovery that must wait: its state is to be saved and the rest run from `until`. */
export interface SiteSyncWait {
  kind: 'wait';
  until: number;
}

/**
 * One step of a discovery run of a site ({@link discoveryStep}), from
 * `state`, which it updates in place: the pages it finds are added as URL
 * sources carrying its `siteId` in batches (each guarded by the site's run,
 * so a deleted or restarted site gets no more pages), their first extraction
 * queued at once. A step that must wait returns `wait` with nothing pending.
 * The last step syncs the site: on a later run the pages found again are
 * fetched again, and a page missed {@link MISSES_TO_REMOVE} runs in a row
 * (not in the sitemap, not linked, or answering 404/410) is removed; a run
 * cut short by a cap counts only 404/410 as misses. Throws what the discovery
 * throws; the caller ends the site `failed` on a permanent error or the last
 * attempt ({@link failSite}).
 */
export async function syncSiteStep(
  deps: SiteSyncDeps,
  job: DiscoverSiteJob,
  site: StoredSite,
  state: DiscoveryState,
  budget: StepBudget,
): Promise<SiteSyncResult | SiteSyncWait | 'gone'> {
  const { workspaceId, kbId, siteId, run } = job;
  const existing = await siteSources(deps, kbId, siteId);
  if (!existing) return 'gone';
  const seenAgain = new Set(state.again);
  const changed = new Set(state.changed);
  let batch: NewSource[] = [];
  let full: SiteTruncatedReason | undefined;
  const quota = deps.quotas && new QuotaGuard(deps.config, deps.quotas);

  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const sources = batch;
    batch = [];
    let committed: NewSource[];
    try {
      ({ added: committed, full } = await addSitePages(deps.kbs, quota, { workspaceId, kbId, sources, now: new Date().toISOString(), siteGuard: { siteId, run } }));
    } catch (err) {
      if (err instanceof NotFoundError) throw new SiteGone();
      throw err;
    }
    state.added += committed.length;
    await deps.queue.enqueue(committed.map((s) => ({ workspaceId, kbId, documentId: s.documentId, run: 1, ...sourceJobInfo(s) })));
    if (full) throw new SiteFull();
  };

  let step: StepOutcome | undefined;
  try {
    step = await discoveryStep(
      {
        url: site.url,
        maxPages: site.maxPages,
        maxDepth: site.maxDepth,
        include: site.include,
        exclude: site.exclude,
        sitemap: site.sitemap,
        agent: agentToken(deps.config.URL_FETCH_USER_AGENT),
        fetch: deps.fetchFor(site),
        maxDelayMs: deps.config.CRAWL_MAX_DELAY_SECONDS * 1000,
        alive: async () => (await deps.sites.get(kbId, siteId))?.run === run,
        onPage: async (url, lastmod) => {
          const fingerprint = sourceFingerprint({ type: 'url', content: url.href });
          const known = existing.get(fingerprint);
          if (known) {
            seenAgain.add(known.documentId);
            if (lastmod !== undefined && changedSince(known, lastmod)) changed.add(known.documentId);
            return;
          }
          batch.push({ documentId: newDocumentId(), type: 'url', content: url.href, fingerprint, siteId });
          if (batch.length >= COMMIT_BATCH) await flush();
        },
      },
      state,
      budget,
    );
    await flush();
  } catch (err) {
    if (err instanceof SiteGone) return 'gone';
    if (!(err instanceof SiteFull)) throw err;
  } finally {
    state.again = [...seenAgain];
    state.changed = [...changed];
  }
  if (step?.kind === 'gone') return 'gone';
  if (!full && step?.kind === 'wait') return step;
  // Stopped short by a quota (perhaps at the last batch): like a cap, only pages that answered 404 or 410 count as missed.
  const result: DiscoveryResult =
    step?.kind === 'done' && !full
      ? step.result
      : { pagesFound: Math.max(state.pagesFound, state.added), pagesAdded: state.added, truncated: true, seen: new Set(state.seen), gone: new Set(state.gone), fromSitemaps: state.fromSitemaps, warnings: state.warnings };
  // The sources as they are now: this run's pages included.
  return finishSync(deps, job, (await siteSources(deps, kbId, siteId)) ?? new Map(), { seenAgain, changed }, result, state.added, full);
}

/** The site's sources by fingerprint; null when the knowledge base is gone. */
async function siteSources(deps: SiteSyncDeps, kbId: string, siteId: string): Promise<Map<string, StoredSource> | null> {
  const found = await deps.kbs.get(kbId);
  if (!found) return null;
  const sources = new Map<string, StoredSource>();
  for (const s of found.sources) if (s.siteId === siteId) sources.set(sourceFingerprint(s), s);
  return sources;
}

/**
 * Whether a sitemap's `<lastmod>` (seconds) is later than the page's last
 * fetch: its refresh then asks for the page unconditionally, as a server may
 * wrongly answer 304 to the validators held for a page that changed.
 */
function changedSince(source: StoredSource, lastmod: number): boolean {
  const checked = Date.parse(source.checkedAt ?? '');
  return Number.isFinite(checked) && lastmod > Math.floor(checked / 1000);
}

/**
 * The end of a run: pages found again are fetched again (unconditionally
 * those in `changed`), pages missed are counted and removed, the site is finished.
 */
async function finishSync(
  deps: SiteSyncDeps,
  job: DiscoverSiteJob,
  sources: Map<string, StoredSource>,
  { seenAgain, changed }: { seenAgain: Set<string>; changed: Set<string> },
  result: DiscoveryResult,
  added: number,
  full?: SiteTruncatedReason,
): Promise<SiteSyncResult> {
  const { workspaceId, kbId, siteId, run } = job;
  const now = () => new Date().toISOString();
  let removed = 0;
  let changes: FeedRange | undefined;
  for (const source of sources.values()) {
    const target = { workspaceId, kbId, documentId: source.documentId };
    if (seenAgain.has(source.documentId)) {
      if (run > 1) await requeueSource(deps, target, 'refresh', now(), { unconditional: changed.has(source.documentId) }).catch(ignoreMoved);
      continue;
    }
    const key = keyDigest(pageKey(new URL(source.content)));
    // Added by this run (in an earlier step), or seen past a cap: not a miss.
    if (result.seen.has(key)) continue;
    if (result.truncated && !result.gone.has(key)) continue;
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
    pagesAdded: sources.size - removed,
    truncated: result.truncated,
    ...(full && { truncatedReason: full }),
    warnings: result.warnings,
  };
  deps.logger.info({ kbId, siteId, run, ...outcome, added, removed, refreshed: run > 1 ? seenAgain.size : 0 }, 'site discovered');
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
