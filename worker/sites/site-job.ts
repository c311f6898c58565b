import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { discoverSiteJobSchema, type DiscoverSiteJob } from '../../shared/queue/jobs.js';
import { isSourceError, SourceError } from '../../shared/source-errors.js';
import { discoveryStateSchema, initialState, type DiscoveryState } from './discovery-state.js';
import { failSite, syncSiteStep, type SiteSyncDeps } from './sync-site.js';

/** How long a discovery waits for its workspace's budget (pages or discoveries at once) before it asks again. */
const BUDGET_RETRY_MS = 5_000;
/** What one step of a discovery may do before it hands its slot back: requests, and time. */
export const STEP_REQUESTS = 20;
export const STEP_MS = 5_000;

export type SiteJobDeps = SiteSyncDeps;

/** What a site discovery job did (the processor's job result). */
export interface SiteJobResult {
  status: 'ready' | 'skipped';
  reason?: string;
}

/**
 * Runs one step of a site discovery job (named `site`): the site must still
 * be discovering under the job's run, else the job ends doing nothing (a
 * site or knowledge base deleted meanwhile stops its discovery at its next
 * step). A discovery holds a place in its workspace's budget
 * (CRAWL_WORKSPACE_MAX_DISCOVERIES at once, CRAWL_WORKSPACE_MAX_PAGES pages
 * in all) from its first step to its end; when there is none, it goes back
 * to the queue for a few seconds without spending an attempt.
 *
 * A step fetches what is due (at most {@link STEP_REQUESTS} requests or
 * {@link STEP_MS}); when the site asks it to wait (Crawl-delay, host
 * spacing, a 429 or 503) or the step's budget is spent, its state goes into
 * the job's data and the job goes back to the queue delayed until the next
 * request is due, with a new priority in its workspace's fair share: no
 * worker slot is held while a discovery waits. A transient failure is
 * retried with the queue's backoff from the state saved last; a permanent
 * one, or the last attempt, ends the site `failed`.
 */
export async function runSiteJob(deps: SiteJobDeps, job: Job, token: string | undefined): Promise<SiteJobResult> {
  const parsed = discoverSiteJobSchema.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError('invalid job data');
  const { state: saved, ...data } = parsed.data;
  const log = deps.logger.child({ jobId: job.id, kbId: data.kbId, siteId: data.siteId, run: data.run });
  const holder = job.id ?? `${data.kbId}.${data.siteId}.d${data.run}`;
  // At the end, the job keeps its references only: finished jobs are kept for a while, their state is not.
  const release = async (): Promise<void> => {
    if (saved) await job.updateData(data).catch(() => undefined);
    await deps.sites.releaseBudget(data.workspaceId, holder).catch(() => undefined);
  };
  const meta = await deps.kbs.getMeta(data.kbId);
  const site = meta?.workspaceId === data.workspaceId ? await deps.sites.get(data.kbId, data.siteId) : null;
  if (!site || site.run !== data.run || site.status !== 'discovering') {
    // Deleted, restarted or ended meanwhile: this step, the next one of a discovery that was waiting, does nothing.
    await release();
    return { status: 'skipped', reason: meta ? 'moved on' : 'gone' };
  }

  if (!(await takeBudget(deps, job, holder, data.workspaceId, site.maxPages))) {
    log.debug('workspace discovery budget in use; discovery delayed');
    return stepLater(deps, job, token, data, saved, Date.now() + BUDGET_RETRY_MS);
  }
  const state = readState(saved);
  let keep = false;
  try {
    const done = await syncSiteStep(deps, data, site, state, { requests: STEP_REQUESTS, until: Date.now() + STEP_MS });
    if (done === 'gone') return { status: 'skipped', reason: 'gone' };
    if ('until' in done) {
      keep = true;
      return await stepLater(deps, job, token, data, state, done.until);
    }
    return { status: 'ready', reason: `${done.outcome.pagesAdded} pages` };
  } catch (err) {
    if (err instanceof DelayedError) throw err;
    const failure = isSourceError(err) ? err : new SourceError('internal', 'Discovery failed unexpectedly; refresh the site to try again', true);
    if (!isSourceError(err)) log.error({ err }, 'unexpected discovery error');
    const last = !failure.retryable || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    if (!last) {
      keep = true; // the retry goes on from the state saved last, in the same place of the budget
      log.warn({ code: failure.code }, 'transient discovery failure; will retry');
      throw failure;
    }
    const error = { code: failure.code, message: failure.message };
    const ended = await failSite(deps, data, error);
    log.info({ code: failure.code }, 'site discovery failed');
    throw new UnrecoverableError(`${failure.code}: ${failure.message}`);
  } finally {
    if (!keep) await release();
  }
}

/** The state saved by the last step; a job without one (or with one an older version wrote) starts over. */
function readState(saved: Record<string, unknown> | undefined): DiscoveryState {
  const parsed = saved ? discoveryStateSchema.safeParse(saved) : undefined;
  return parsed?.success ? parsed.data : initialState();
}

/**
 * Saves the discovery's state in the job and puts the job back in the queue,
 * delayed until `at`, with a new priority in its workspace's fair share;
 * not an attempt (BullMQ's DelayedError).
 */
async function stepLater(
  deps: SiteJobDeps,
  job: Job,
  token: string | undefined,
  data: DiscoverSiteJob,
  state: Record<string, unknown> | undefined,
  at: number,
): Promise<never> {
  if (state) await job.updateData({ ...data, state });
  // On an active job this sets the priority its next step is queued with.
  await job.changePriority({ priority: await deps.queue.nextPriority(data.workspaceId) });
  await job.moveToDelayed(Math.max(at, Date.now()), token);
  throw new DelayedError();
}

/**
 * Takes the site's place in the workspace's budget for this job (kept from
 * one step to the next). When the budget is spent, the places of holders
 * whose job is gone or finished (a worker that crashed mid-discovery, whose
 * `finally` never ran) are dropped and the budget is asked once more, so a
 * crash never leaks pages for good.
 */
async function takeBudget(deps: SiteJobDeps, job: Job, holder: string, workspaceId: string, pages: number): Promise<boolean> {
  const caps = { pages: deps.config.CRAWL_WORKSPACE_MAX_PAGES, discoveries: deps.config.CRAWL_WORKSPACE_MAX_DISCOVERIES };
  const first = await deps.sites.reserveBudget(workspaceId, holder, pages, caps);
  if (first.ok) return true;
  const dead = await deps.sites.dropDeadHolders(workspaceId, first.holders, (h) => `${job.queueQualifiedName}:${h}`);
  if (dead.length === 0) return false;
  deps.logger.warn({ workspaceId, holders: dead }, 'discovery budget held by jobs that are no longer running; released');
  return (await deps.sites.reserveBudget(workspaceId, holder, pages, caps)).ok;
}
