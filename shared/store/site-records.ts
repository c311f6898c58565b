import { MAX_SITE_WARNINGS, siteWarningSchema, type Site, type SiteSettings, type SiteState, type SiteTruncatedReason, type SitemapMode, type SiteWarning } from '../schemas/site.js';

/** A site as the API hands it to the commit. */
export interface NewSite extends SiteSettings {
  siteId: string;
}

/** A site as stored: the public view plus the run of its discovery. */
export interface StoredSite extends Site {
  /** Raised by each discovery (the first is 1); pages of an older run are not added. */
  run: number;
}

/** Flattens a new site to its record's string fields, under run 1; its state is the commit's move (`discovering`). */
export function siteFields(s: NewSite, now: string): Record<string, string> {
  return {
    siteId: s.siteId,
    url: s.url,
    maxPages: String(s.maxPages),
    maxDepth: String(s.maxDepth),
    include: JSON.stringify(s.include ?? []),
    exclude: JSON.stringify(s.exclude ?? []),
    sitemap: s.sitemap,
    pagesFound: '0',
    pagesAdded: '0',
    truncated: '0',
    run: '1',
    createdAt: now,
    updatedAt: now,
  };
}

const list = (v: string | undefined): string[] => {
  try {
    const parsed: unknown = JSON.parse(v ?? '[]');
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
};

/** The warnings of a site's record; a field that does not read as warnings is none. */
function warningList(v: string | undefined): SiteWarning[] {
  if (!v) return [];
  try {
    const parsed = siteWarningSchema.array().max(MAX_SITE_WARNINGS).safeParse(JSON.parse(v));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

/** Reads a site's record; null when it is gone. */
export function parseSite(h: Record<string, string>): StoredSite | null {
  if (!h.siteId || !h.url) return null;
  const site: StoredSite = {
    siteId: h.siteId,
    url: h.url,
    maxPages: Number(h.maxPages ?? 0),
    maxDepth: Number(h.maxDepth ?? 0),
    include: list(h.include),
    exclude: list(h.exclude),
    sitemap: (h.sitemap ?? 'auto') as SitemapMode,
    status: (h.state ?? 'discovering') as SiteState,
    pagesFound: Number(h.pagesFound ?? 0),
    pagesAdded: Number(h.pagesAdded ?? 0),
    truncated: h.truncated === '1',
    createdAt: h.createdAt ?? '',
    updatedAt: h.updatedAt ?? h.createdAt ?? '',
    run: Number(h.run ?? 1),
  };
  if (h.error) site.error = JSON.parse(h.error) as { code: string; message: string };
  const warnings = warningList(h.warnings);
  if (warnings.length > 0) site.warnings = warnings;
  if (h.discoveredAt) site.discoveredAt = h.discoveredAt;
  if (h.truncatedReason) site.truncatedReason = h.truncatedReason as SiteTruncatedReason;
  return site;
}

/** The public view of a stored site. */
export function publicSite(s: StoredSite): Site {
  const { run: _run, ...pub } = s;
  return pub;
}

/** What a discovery writes when it ends. */
export interface SiteOutcome {
  state: Exclude<SiteState, 'discovering'>;
  pagesFound: number;
  pagesAdded: number;
  truncated: boolean;
  /** The quota that stopped the site adding pages, when one did. */
  truncatedReason?: SiteTruncatedReason;
  error?: { code: string; message: string };
  /** What the discovery skipped and went on without (kept up to {@link MAX_SITE_WARNINGS}). */
  warnings?: SiteWarning[];
}

/** The record fields of a discovery's end; its state is the finish's move. */
export function outcomeSiteFields(o: SiteOutcome, now: string): Record<string, string> {
  return {
    pagesFound: String(o.pagesFound),
    pagesAdded: String(o.pagesAdded),
    truncated: o.truncated ? '1' : '0',
    truncatedReason: o.truncatedReason ?? '',
    error: o.error ? JSON.stringify(o.error) : '',
    warnings: o.warnings?.length ? JSON.stringify(o.warnings.slice(0, MAX_SITE_WARNINGS)) : '',
    discoveredAt: now,
    updatedAt: now,
  };
}
