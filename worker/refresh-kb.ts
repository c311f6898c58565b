import { ConflictError } from '../shared/errors.js';
import type { RefreshKbJob, SourceQueue } from '../shared/jobs.js';
import type { Logger } from '../shared/logger.js';
import type { KbStore } from '../shared/store/kb-store.js';

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
  const runs = [];
  for (const source of found.sources) {
    if (source.type !== 'url' || (source.status !== 'ready' && source.status !== 'failed')) continue;
    try {
      const run = await deps.kbs.refreshSource(job.workspaceId, job.kbId, source.documentId, new Date().toISOString());
      runs.push({ ...job, documentId: source.documentId, run });
    } catch (err) {
      // Started or deleted since it was read: nothing to refresh.
      if (!(err instanceof ConflictError) && !(err instanceof Error && err.name === 'NotFoundError')) throw err;
    }
  }
  await deps.queue.enqueue(runs);
  if (runs.length > 0) deps.logger.info({ kbId: job.kbId, sources: runs.length }, 'refreshing URL sources on schedule');
  return runs.length;
}
