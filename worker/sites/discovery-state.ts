import { createHash } from 'node:crypto';
import { z } from 'zod';
import { MAX_SITE_WARNINGS, siteWarningSchema } from '../../shared/schemas/site.js';

/**
 * What a site's discovery keeps between its steps, in its job's data (see
 * `site-job.ts`): where it is, what it has still to fetch, what it has seen,
 * its counters and when it may next ask the site. Page keys are kept as
 * digests ({@link keyDigest}), so the state's size is bounded by `maxPages`
 * whatever the length of the site's URLs:
 *
 * - `seen`, `queued`, `gone`: at most `maxPages × 10 + 100` digests of 16 characters each;
 * - `links`: queued page URLs, at most {@link LINK_QUEUE_MAX_CHARS} characters in all;
 * - `sitemaps`: at most 200 sitemap URLs queued (their URLs at most 2,048 characters);
 * - `robots`: the site's robots.txt as read, at most 512 KiB (ROBOTS_MAX_BYTES);
 * - `again`: ids of the site's pages found again, at most `maxPages`, and `changed`, those of them
 *   whose sitemap `<lastmod>` is later than their last fetch;
 * - `warnings`: what was skipped (a sitemap that could not be read), at most MAX_SITE_WARNINGS.
 */
export const discoveryStateSchema = z.object({
  phase: z.enum(['robots', 'sitemaps', 'links', 'done']),
  /** robots.txt as read; empty when the site has none (everything allowed). */
  robots: z.string().optional(),
  /** Earliest time of the next request to the site (ms since the epoch): Crawl-delay, host spacing, Retry-After. */
  nextAt: z.number(),
  requests: z.number().int(),
  /** Waits asked by 429/503 answers so far (each bounded, their number too). */
  backoffs: z.number().int(),
  sitemaps: z.array(z.string()),
  sitemapsQueued: z.array(z.string()),
  sitemapsRead: z.number().int(),
  links: z.array(z.tuple([z.string(), z.number().int()])),
  linkChars: z.number().int(),
  queued: z.array(z.string()),
  fetches: z.number().int(),
  seen: z.array(z.string()),
  gone: z.array(z.string()),
  pagesFound: z.number().int(),
  pagesAdded: z.number().int(),
  truncated: z.boolean(),
  fromSitemaps: z.boolean(),
  /** The site's pages found again (document ids), and the pages this run added. */
  again: z.array(z.string()),
  /** Of `again`, the pages the sitemap says changed since they were last fetched: fetched again unconditionally. */
  changed: z.array(z.string()).default([]),
  added: z.number().int(),
  /** Kept across steps: the site shows them when the discovery ends. A state saved before warnings existed has none. */
  warnings: z.array(siteWarningSchema).max(MAX_SITE_WARNINGS).default([]),
});
export type DiscoveryState = z.infer<typeof discoveryStateSchema>;

/** Characters of page URLs a link crawl keeps queued at most; past it, links are left and the crawl says it was cut short. */
export const LINK_QUEUE_MAX_CHARS = 512 * 1024;

/** A discovery that has not started. */
export function initialState(): DiscoveryState {
  return {
    phase: 'robots',
    nextAt: 0,
    requests: 0,
    backoffs: 0,
    sitemaps: [],
    sitemapsQueued: [],
    sitemapsRead: 0,
    links: [],
    linkChars: 0,
    queued: [],
    fetches: 0,
    seen: [],
    gone: [],
    pagesFound: 0,
    pagesAdded: 0,
    truncated: false,
    fromSitemaps: false,
    again: [],
    changed: [],
    added: 0,
    warnings: [],
  };
}

/** A page key ({@link pageKey}) as a discovery remembers it: 64 bits of its SHA-256, in hex. */
export function keyDigest(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}
