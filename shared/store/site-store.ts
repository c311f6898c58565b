import type { SourceCounts } from '../sources/lifecycle.js';
import { siteDiscoveredEvent } from './outbox-events.js';
import { runScript, type StoreRedis } from './commands.js';
import type { KeySpace } from './keys.js';
import { resultError } from './scripts/result-error.js';
import { feedRange, type FeedRange } from '../feed/cursor.js';
import { claimLandedUrlScript, deleteSiteScript, finishSiteScript, reserveCrawlBudgetScript, restartSiteScript, type SiteTarget } from './scripts/site-scripts.js';
import { ActiveIndex } from './active-index.js';
import { dropChunks, joinRanges } from './chunk-emission.js';
import { outcomeSiteFields, parseSite, type SiteOutcome, type StoredSite } from './site-records.js';

/** Budgets left behind by a crashed discovery run out after this long (seconds). */
const BUDGET_TTL_SECONDS = 6 * 3600;

/** How many discoveries a workspace may run at once, and how many pages they may add in all. */
export interface CrawlBudgetCaps {
  pages: number;
  discoveries: number;
}

/** What the end of a discovery reported. */
export type SiteFinish = { kind: 'stale' } | { kind: 'ok'; settledSeq?: number; sourceCounts: SourceCounts };

/**
 * Site records of a knowledge base: read, end a discovery, start one again,
 * delete a site with its pages; and the per-workspace budget of pages in
 * discovery. Sites are created with their knowledge base's commit (see
 * `commitSources.lua`), so a rejected request leaves none behind.
 */
export class SiteStore {
  constructor(
    private readonly redis: StoreRedis,
    private readonly keys: KeySpace,
  ) {}

  /** Every site of a knowledge base, in the order they were added. */
  async list(kbId: string): Promise<StoredSite[]> {
    return this.read(kbId, await this.redis.lrange(this.keys.sites(kbId), 0, -1));
  }

  /** The records of these sites, in this order; one deleted meanwhile is left out. */
  async read(kbId: string, ids: string[]): Promise<StoredSite[]> {
    if (ids.length === 0) return [];
    const rows = await Promise.all(ids.map((id) => this.redis.hgetall(this.keys.site(kbId, id))));
    return rows.map(parseSite).filter((s): s is StoredSite => s !== null);
  }

  async get(kbId: string, siteId: string): Promise<StoredSite | null> {
    return parseSite(await this.redis.hgetall(this.keys.site(kbId, siteId)));
  }

  /** Records the end of discovery run `run`; `stale` when the site moved on (restarted or deleted). */
  async finish(kbId: string, siteId: string, run: number, outcome: SiteOutcome, now: string): Promise<SiteFinish> {
    const reply = await runScript(this.redis, this.keys, finishSiteScript, {
      kbId,
      siteId,
      run,
      now,
      state: outcome.state,
      fields: outcomeSiteFields(outcome, now),
      event: siteDiscoveredEvent(kbId, siteId, run, outcome),
    });
    if (reply.kind === 'stale') return reply;
    return { kind: 'ok', sourceCounts: reply.counts, ...(reply.settled > 0 && { settledSeq: reply.settled }) };
  }

  /** Puts a site back to discovering under a new run; 409 while it is discovering. Returns the run. */
  async restart(target: SiteTarget, now: string): Promise<number> {
    const report = await this.restartReport(target, now);
    if (!report.restarted) throw resultError('site_busy');
    return report.run;
  }

  /**
   * Puts a site back to discovering under a new run, or, while a discovery
   * runs, leaves it as it is (`restarted` false); either way with its run and
   * its record, read by the same script.
   */
  async restartReport(target: SiteTarget, now: string): Promise<{ restarted: boolean; run: number; site: StoredSite }> {
    // Marked with the script (another hash slot), as for new sources: the reconciler walks this index.
    const reply = await new ActiveIndex(this.redis, this.keys).markedWrite(target.kbId, now, () => runScript(this.redis, this.keys, restartSiteScript, { ...target, now }));
    if (reply.kind !== 'ok' && reply.kind !== 'busy') throw resultError(reply.kind, { kbId: target.kbId, siteId: target.siteId });
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < reply.record.length; i += 2) fields[reply.record[i]!] = reply.record[i + 1]!;
    const site = parseSite(fields);
    if (!site) throw new Error('the restart of a site answered without its record');
    return reply.kind === 'ok' ? { restarted: true, run: reply.run, site } : { restarted: false, run: site.run, site };
  }

  /**
   * Deletes a site and its pages: the site at once, its pages in bounded
   * steps, all before this returns; returns how many pages went and the
   * change feed range the delete wrote. A delete a crash cut short is
   * finished by the reconciler ({@link sweep}).
   */
  async delete(target: SiteTarget, now: string): Promise<{ removed: number; changes: FeedRange | undefined }> {
    // The reconciler walks this index: it finishes a delete a crash cut short.
    const reply = await new ActiveIndex(this.redis, this.keys).markedWrite(target.kbId, now, () => runScript(this.redis, this.keys, deleteSiteScript, { ...target, now }));
    if (reply.kind !== 'ok') throw resultError(reply.kind, { kbId: target.kbId, siteId: target.siteId });
    const rest = reply.done ? { removed: 0, changes: undefined } : await this.sweep(target, now);
    const changes = joinRanges(joinRanges(feedRange(reply.feedFrom, reply.feedTo), rest.changes), await this.drop(target.kbId, reply.dropping));
    return { removed: reply.removed + rest.removed, changes };
  }

  /** Deletes the pages a site's delete has left, in bounded steps; returns how many went and the feed range written. */
  async sweep(target: SiteTarget, now: string): Promise<{ removed: number; changes: FeedRange | undefined }> {
    let removed = 0;
    let changes: FeedRange | undefined;
    for (;;) {
      const reply = await runScript(this.redis, this.keys, deleteSiteScript, { ...target, now, sweep: true });
      if (reply.kind !== 'ok') return { removed, changes };
      removed += reply.removed;
      changes = joinRanges(joinRanges(changes, feedRange(reply.feedFrom, reply.feedTo)), await this.drop(target.kbId, reply.dropping));
      if (reply.done) return { removed, changes };
    }
  }

  /** Sites whose delete has not finished, with when it began (ms). */
  async sweeping(kbId: string): Promise<{ siteId: string; sinceMs: number }[]> {
    const flat = await this.redis.zrange(this.keys.siteSweeps(kbId), 0, -1, 'WITHSCORES');
    const out: { siteId: string; sinceMs: number }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) out.push({ siteId: flat[i]!, sinceMs: Number(flat[i + 1]) });
    return out;
  }

  /** The chunk.deleted events of deleted pages of many chunks; the pages are gone, so a failure leaves them to the reconciler. */
  private async drop(kbId: string, documentIds: readonly string[]): Promise<FeedRange | undefined> {
    let changes: FeedRange | undefined;
    for (const documentId of documentIds) changes = joinRanges(changes, await dropChunks(this.redis, this.keys, kbId, documentId).catch(() => undefined));
    return changes;
  }

  /** Counts one more consecutive miss of a page; returns the count. */
  async addMiss(kbId: string, siteId: string, documentId: string): Promise<number> {
    return this.redis.hincrby(this.keys.siteMisses(kbId, siteId), documentId, 1);
  }

  /** Forgets the misses of pages found again (or removed). */
  async clearMisses(kbId: string, siteId: string, documentIds: string[]): Promise<void> {
    if (documentIds.length > 0) await this.redis.hdel(this.keys.siteMisses(kbId, siteId), ...documentIds);
  }

  /**
   * Takes `pages` from the workspace's budget of pages in discovery for
   * `holder` (a discovery job's id): at most `caps.pages` in all, held by at
   * most `caps.discoveries` holders. A holder keeps its place between the
   * steps of its discovery, until it gives it back. When taking it would go
   * over a cap, nothing is taken and the other holders are returned, so the
   * caller can drop those that died holding pages ({@link dropDeadHolders}).
   */
  async reserveBudget(workspaceId: string, holder: string, pages: number, caps: CrawlBudgetCaps): Promise<{ ok: true } | { ok: false; holders: string[] }> {
    const reply = await runScript(this.redis, this.keys, reserveCrawlBudgetScript, {
      workspaceId,
      holder,
      pages,
      cap: caps.pages,
      maxHolders: caps.discoveries,
      ttlSeconds: BUDGET_TTL_SECONDS,
    });
    return reply.kind === 'ok' ? { ok: true } : { ok: false, holders: reply.holders };
  }

  /**
   * Drops the pages of each holder whose job (the BullMQ job hash
   * `jobKey(holder)`) is gone or finished: a worker that crashed mid-discovery,
   * or a job removed by hand, never gave its pages back. A job waiting for its
   * next step (delayed) or stalled (to be taken over) is alive. Returns the
   * holders dropped.
   */
  async dropDeadHolders(workspaceId: string, holders: string[], jobKey: (holder: string) => string): Promise<string[]> {
    // One HMGET per holder: the jobs live in the queue's slot, the budget in the workspace's.
    const rows = await Promise.all(holders.map((h) => this.redis.hmget(jobKey(h), 'timestamp', 'finishedOn')));
    const dead = holders.filter((_, i) => rows[i]![0] === null || rows[i]![1] !== null);
    if (dead.length > 0) await this.redis.hdel(this.keys.crawlBudget(workspaceId), ...dead);
    return dead;
  }

  /** Gives a holder's pages back to the workspace's budget. */
  async releaseBudget(workspaceId: string, holder: string): Promise<void> {
    await this.redis.hdel(this.keys.crawlBudget(workspaceId), holder);
  }

  /**
   * A site's page whose fetch landed on another URL of the site (`landed`, a
   * fingerprint; `listed` is the page's own): the page takes the landed URL's
   * fingerprint (`own`), or, when another source holds it, its own URL
   * becomes an alias of that source (`alias`, the caller removes the page).
   */
  async claimLandedUrl(kbId: string, documentId: string, listed: string, landed: string): Promise<{ kind: 'own' | 'missing' } | { kind: 'alias'; owner: string }> {
    return runScript(this.redis, this.keys, claimLandedUrlScript, { kbId, documentId, listed, landed });
  }
}
