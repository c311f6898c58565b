import { ConflictError, NotFoundError } from '../../shared/errors.js';
import type { RefreshKbJob, SourceQueue } from '../../shared/queue/jobs.js';
import type { Logger } from '../../shared/runtime/logger.js';
import type { KbStore } from '../../shared/store/kb-store.js';
import { isFinalStatus } from '../../shared/sources/lifecycle.js';
import { requeueSource } from '../../shared/verbs/requeue.js';
import type { SiteStore } from '../../shared/store/site-store.js';

export interface RefreshDeps {
  kbs: KbStore;
  queue: SourceQueue;
  logger: Logger;
  /** With it, sites are discovered again and their pages left to that discovery. */
  sites?: SiteStore;
}

/**
 * The scheduled refresh of a knowledge base (`auto_refresh_hours`): every URL
 * source that is ready or failed goes back to pending under a new run and is
 * queued; one still in progress is left alone. A knowledge base that is gone,
 * or whose refresh was turned off, loses its schedule.
 */
export async function refreshKnowledgeBase(deps: RefreshDeps, job: RefreshKbJob): Promise<number> {
  const found = await deps.kbs.get(job.kbId);
  if (!found || found.meta.workspaceId !== job.workspaceId || found.meta.autoRefreshHours === 0) {
    await deps.queue.scheduleRefresh(job, 0);
    return 0;
  }
  let runs = 0;
  for (const source of found.sources) {
    if (source.type !== 'url' || !isFinalStatus(source.status)) continue;
    if (deps.sites && source.siteId) continue; // its site's discovery fetches it again
    try {
      await requeueSource(deps, { workspaceId: job.workspaceId, kbId: job.kbId, documentId: source.documentId }, 'refresh', new Date().toISOString());
      runs += 1;
    } catch (err) {
      // Started or deleted since it was read: nothing to refresh.
      if (!(err instanceof ConflictError) && !(err instanceof NotFoundError)) throw err;
    }
  }
  for (const site of (await deps.sites?.list(job.kbId)) ?? []) {
    if (site.status === 'discovering') continue;
    try {
      const run = await deps.sites!.restart({ workspaceId: job.workspaceId, kbId: job.kbId, siteId: site.siteId }, new Date().toISOString());
      await deps.queue.discover([{ workspaceId: job.workspaceId, kbId: job.kbId, siteId: site.siteId, run }]);
      runs += 1;
    } catch (err) {
      if (!(err instanceof ConflictError) && !(err instanceof NotFoundError)) throw err;
    }
  }
  if (runs > 0) deps.logger.info({ kbId: job.kbId, sources: runs }, 'refreshing URL sources and sites on schedule');
  return runs;
}
