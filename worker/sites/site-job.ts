import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { discoverSiteJobSchema } from '../../shared/jobs.js';
import { isSourceError, SourceError } from '../../shared/source-errors.js';
import type { SourceEvents } from '../webhooks/events.js';
import { failSite, syncSite, type SiteSyncDeps } from './sync-site.js';

/** How long a discovery waits for its workspace's page budget before it asks again. */
const BUDGET_RETRY_MS = 5_000;

export interface SiteJobDeps extends SiteSyncDeps {
  events?: SourceEvents;
}

/** What a site discovery job did (the processor's job result). */
export interface SiteJobResult {
  status: 'ready' | 'skipped';
  reason?: string;
}

/**
 * Runs one site discovery job (named `site`): the site must still be discovering under the
 * job's run. It takes its `maxPages` from the workspace's budget of pages in
 * discovery (CRAWL_WORKSPACE_MAX_PAGES) and, when the budget is spent, goes
 * back to the queue for a few seconds without spending an attempt. A
 * transient failure is retried with the queue's backoff; a permanent one, or
 * the last attempt, ends the site `failed`.
 */
export async function runSiteJob(deps: SiteJobDeps, job: Job, token: string | undefined): Promise<SiteJobResult> {
  const parsed = discoverSiteJobSchema.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError('invalid job data');
  const data = parsed.data;
  const log = deps.logger.child({ jobId: job.id, kbId: data.kbId, siteId: data.siteId, run: data.run });
  const meta = await deps.kbs.getMeta(data.kbId);
  if (!meta || meta.workspaceId !== data.workspaceId) return { status: 'skipped', reason: 'gone' };
  const site = await deps.sites.get(data.kbId, data.siteId);
  if (!site || site.run !== data.run || site.status !== 'discovering') return { status: 'skipped', reason: 'moved on' };

  const holder = job.id ?? `${data.kbId}.${data.siteId}.d${data.run}`;
  if (!(await takeBudget(deps, job, holder, data.workspaceId, site.maxPages))) {
    log.debug('workspace page budget in use; discovery delayed');
    await job.moveToDelayed(Date.now() + BUDGET_RETRY_MS, token);
    throw new DelayedError();
  }
  try {
    const done = await syncSite(deps, data, site);
    if (done === 'gone') return { status: 'skipped', reason: 'gone' };
    await deps.events?.siteDiscovered?.(data, done.outcome, done.finish);
    if (done.changes) await deps.events?.changed?.(data.workspaceId, data.kbId, done.changes);
    return { status: 'ready', reason: `${done.outcome.pagesAdded} pages` };
  } catch (err) {
    const failure = isSourceError(err) ? err : new SourceError('internal', 'Discovery failed unexpectedly; refresh the site to try again', true);
    if (!isSourceError(err)) log.error({ err }, 'unexpected discovery error');
    const last = !failure.retryable || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    if (!last) {
      log.warn({ code: failure.code }, 'transient discovery failure; will retry');
      throw failure;
    }
    const error = { code: failure.code, message: failure.message };
    const ended = await failSite(deps, data, error);
    log.info({ code: failure.code }, 'site discovery failed');
    await deps.events?.siteDiscovered?.(data, ended.outcome, ended.finish);
    throw new UnrecoverableError(`${failure.code}: ${failure.message}`);
  } finally {
    await deps.sites.releaseBudget(data.workspaceId, holder).catch(() => undefined);
  }
}

/**
 * Takes the site's pages from the workspace's budget for this job. When the
 * budget is spent, the pages of holders whose job lock is gone (a worker that
 * crashed mid-discovery, whose `finally` never ran) are dropped and the budget
 * is asked once more, so a crash never leaks pages for good.
 */
async function takeBudget(deps: SiteJobDeps, job: Job, holder: string, workspaceId: string, pages: number): Promise<boolean> {
  const cap = deps.config.CRAWL_WORKSPACE_MAX_PAGES;
  const first = await deps.sites.reserveBudget(workspaceId, holder, pages, cap);
  if (first.ok) return true;
  const dead = await deps.sites.dropDeadHolders(workspaceId, first.holders, (h) => `${job.queueQualifiedName}:${h}:lock`);
  if (dead.length === 0) return false;
  deps.logger.warn({ workspaceId, holders: dead }, 'discovery budget held by jobs that are no longer running; released');
  return (await deps.sites.reserveBudget(workspaceId, holder, pages, cap)).ok;
}
