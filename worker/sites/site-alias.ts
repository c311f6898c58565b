import { ConflictError, NotFoundError } from '../../shared/errors.js';
import type { FeedRange } from '../../shared/feed/cursor.js';
import type { SourceTarget } from '../../shared/sources/source-ref.js';
import { sourceFingerprint, type StoredSource } from '../../shared/store/kb-records.js';
import type { KbStore } from '../../shared/store/kb-store.js';
import type { SettleReport } from '../../shared/store/settle-report.js';
import type { SiteStore } from '../../shared/store/site-store.js';
import { pageUrl, siteOrigin } from './site-url.js';

/**
 * What a page that landed elsewhere came to: kept (its URL or the one it
 * landed on is its own), or removed as an alias, with the change feed range
 * its delete wrote and the settle it made (a settle number when it was the
 * knowledge base's last source in flight).
 */
export type LandedPage = { kind: 'kept' } | { kind: 'alias'; owner: string; changes: FeedRange | undefined; settle?: SettleReport };

/**
 * A site's page is one source whatever URL it was found by: when the fetch
 * of a page (`source`) landed on another URL of the site (a redirect, as
 * `/index.html` → 301 → `/git.html`), the source is keyed by that URL too,
 * so a later discovery of either finds it. When another source already
 * holds the URL it landed on, this one is an alias: its URL is kept as an
 * alias of that source and the source itself is removed (with the change
 * feed range its delete wrote, if it had chunks, and its settle).
 */
export async function settleLandedPage(deps: { kbs: KbStore; sites: SiteStore }, target: SourceTarget, source: StoredSource, finalUrl: string): Promise<LandedPage> {
  if (source.type !== 'url' || !source.siteId) return { kind: 'kept' };
  const listedUrl = new URL(source.content);
  const landedUrl = pageUrl(finalUrl, finalUrl, siteOrigin(listedUrl));
  if (!landedUrl) return { kind: 'kept' };
  const listed = sourceFingerprint({ type: 'url', content: source.content });
  const landed = sourceFingerprint({ type: 'url', content: landedUrl.href });
  if (listed === landed) return { kind: 'kept' };
  const claim = await deps.sites.claimLandedUrl(target.kbId, target.documentId, listed, landed);
  if (claim.kind !== 'alias') return { kind: 'kept' };
  try {
    const { changes, settle } = await deps.kbs.deleteSource(target, new Date().toISOString());
    return { kind: 'alias', owner: claim.owner, changes, settle };
  } catch (err) {
    // Deleted meanwhile: nothing is left to remove.
    if (err instanceof ConflictError || err instanceof NotFoundError) return { kind: 'alias', owner: claim.owner, changes: undefined };
    throw err;
  }
}
