import { underHold, type QuotaGuard } from '../../shared/quotas.js';
import type { SiteTruncatedReason } from '../../shared/schemas/site.js';
import type { NewSource } from '../../shared/store/kb-records.js';
import type { AddSourcesInput, KbStore } from '../../shared/store/kb-store.js';

/** What a batch of a site's pages added, and the quota that left no room for the rest. */
export interface PagesAdded {
  added: NewSource[];
  full?: SiteTruncatedReason;
}

/**
 * Adds a batch of a site's pages as the API adds sources: the workspace's
 * in-flight and stored-bytes quotas are reserved first (as many pages as fit;
 * none when the workspace is at its byte quota), the per-knowledge-base quota
 * is checked by the commit, which adds the pages that fit. `full` names the
 * quota that left a page out, so the discovery stops there. Without a guard
 * (no quota store), the pages are added as they are.
 */
export async function addSitePages(kbs: KbStore, quota: QuotaGuard | undefined, input: AddSourcesInput): Promise<PagesAdded> {
  if (!quota) return { added: await kbs.addSources(input) };
  const { granted, hold, refused } = await quota.reservePages(input.workspaceId, input.sources.length);
  if (refused) return { added: [], full: refused };
  const { maxSources } = await quota.commitLimits(input.workspaceId);
  const sources = input.sources.slice(0, granted);
  const { added, left } = await underHold(hold, () => kbs.addPages({ ...input, sources, ...(maxSources !== undefined && { maxSources }) }));
  if (left > 0) return { added, full: 'knowledge_base_full' };
  return granted < input.sources.length ? { added, full: 'sources_in_flight' } : { added };
}
