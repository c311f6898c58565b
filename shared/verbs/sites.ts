import { notFound } from '../errors.js';
import type { Site } from '../schemas/site.js';
import type { SiteTarget } from '../store/scripts/site-scripts.js';
import { publicSite } from '../store/site-records.js';
import type { SiteStore } from '../store/site-store.js';
import { assertOwned, type KbDeps } from './knowledge-bases.js';

/** What the site verbs need: the knowledge-base verbs' deps with the site store. */
export type SiteDeps = KbDeps & { sites: SiteStore };

/** One site of a knowledge base the workspace owns; 404 when it has no such site. */
export async function readSite(deps: SiteDeps, { workspaceId, kbId, siteId }: SiteTarget): Promise<Site> {
  await assertOwned(deps, workspaceId, kbId);
  const site = await deps.sites.get(kbId, siteId);
  if (!site) throw notFound('Site', siteId, `knowledge base ${kbId}`);
  return publicSite(site);
}

/** Removes a site with every page its discoveries added; a running discovery adds nothing more. */
export async function deleteSite(deps: SiteDeps, target: SiteTarget): ReturnType<SiteStore['delete']> {
  return deps.sites.delete(target, new Date().toISOString());
}

/**
 * Discovers a site again: new pages are added, its pages are fetched again,
 * and pages missing twice in a row go. While a discovery runs, its job is
 * queued again (a no-op when it is still queued or running), so a site whose
 * first job was lost can be set going; the answer is then the site as it is.
 * One script, which answers with the site, and the enqueue.
 */
export async function refreshSite(deps: SiteDeps, target: SiteTarget): Promise<Site> {
  const { run, site } = await deps.sites.restartReport(target, new Date().toISOString());
  await deps.queue.discover([{ ...target, run }]);
  return publicSite(site);
}
