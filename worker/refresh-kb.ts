import { ConflictError, NotFoundError } from '../shared/errors.js';
import type { RefreshKbJob, SourceQueue } from '../shared/jobs.js';
import type { Logger } from '../shared/logger.js';
import type { KbStore } from '../shared/store/kb-store.js';
import { isFinalStatus } from '../shared/sources/lifecycle.js';
import { requeueSource } from '../shared/sources/requeue.js';

export interface RefreshDeps {
  kbs: KbStore;
  queue: SourceQueue;
  logger: Logger;
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
    try {
      await requeueSource(deps, { workspaceId: job.workspaceId, kbId: job.kbId, documentId: source.documentId }, 'refresh', new Date().toISOString());
      runs += 1;
    } catch (err) {
      // Started or deleted since it was read: nothing to refresh.
      if (!(err instanceof ConflictError) && !(err instanceof NotFoundError)) throw err;
    }
  }
  if (runs > 0) deps.logger.info({ kbId: job.kbId, sources: runs }, 'refreshing URL sources on schedule');
  return runs;
}
