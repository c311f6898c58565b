import { setImmediate as nextTurn } from 'node:timers/promises';
import { isSourceError, SourceError } from '../../shared/source-errors.js';
import { MAX_SITE_WARNINGS, type SitemapMode, type SiteWarning } from '../../shared/schemas/site.js';
import type { FetchedUrl } from '../fetch-url.js';
import { pageLinks } from './links.js';
import { httpStatusOf, loadRobots, type RobotsRules } from './robots.js';
import { looksLikeSitemap, pageKey, pageUrl, pathFilter, siteOrigin, type SiteOrigin } from './site-url.js';
import { parseSitemap, SITEMAP_MAX_BYTES, SitemapError } from './sitemap.js';

/** Sitemaps (indexes included) one discovery reads at most. */
export const MAX_SITEMAPS = 50;
/** Largest page read for its links. */
export const PAGE_MAX_BYTES = 5 * 1024 * 1024;
/** Longest stretch of URL checks (a sitemap's entries, a crawl's queue) without a turn of the event loop (ms). */
const LOOP_TURN_MS = 10;
/** Distinct URLs remembered per page a site may add: what bounds a crawl of an endless link space. */
const SEEN_PER_PAGE = 10;

/** Fetches for discovery; redirects off the site are refused by the caller's fetcher. */
export type DiscoveryFetch = (url: string, maxBytes: number) => Promise<FetchedUrl>;

/** One discovery's settings and effects. */
export interface DiscoverOptions {
  url: string;
  maxPages: number;
  maxDepth: number;
  include: string[];
  exclude: string[];
  sitemap: SitemapMode;
  /** robots.txt product token, e.g. `kb-ingest`. */
  agent: string;
  fetch: DiscoveryFetch;
  /** Called once per page, in discovery order, for at most `maxPages` pages. */
  onPage(url: URL): Promise<void>;
  /** Waits between two requests when robots.txt asks for a Crawl-delay. Default setTimeout. */
  sleep?: (ms: number) => Promise<void>;
}

export interface DiscoveryResult {
  /** Distinct allowed pages seen (those added and those left past a cap). */
  pagesFound: number;
  pagesAdded: number;
  /** A cap (maxPages, the fetch budget or the memory bound) ended the discovery early. */
  truncated: boolean;
  /** Keys ({@link pageKey}) of pages that answered 404 or 410. */
  gone: Set<string>;
  /** Whether the pages came from sitemaps. */
  fromSitemaps: boolean;
  /** What was skipped on the way (at most {@link MAX_SITE_WARNINGS}). */
  warnings: SiteWarning[];
}

/**
 * Finds a site's pages: robots.txt first (its Disallow rules keep pages
 * from being fetched or added; its Crawl-delay paces the requests), then its
 * sitemaps (`auto`, `only`, or a sitemap URL given as the site), else links
 * from the start page breadth first up to `maxDepth`. Only same-site URLs
 * count (scheme, host up to `www.`, port), after dropping fragments and
 * tracking parameters, each once; a page's `rel=canonical` on the site
 * stands for it. Memory and requests are bounded by `maxPages`: however
 * endless the site's link space, a discovery remembers at most ten URLs and
 * makes at most two requests per page it may add.
 */
export async function discoverSite(opts: DiscoverOptions): Promise<DiscoveryResult> {
  const start = new URL(opts.url);
  const origin = siteOrigin(start);
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const inPaths = pathFilter(opts.include, opts.exclude);
  let requests = 0;
  let robots: RobotsRules | undefined;
  const fetchPaced: DiscoveryFetch = async (url, maxBytes) => {
    if (requests > 0 && robots && robots.delayMs > 0) await sleep(robots.delayMs);
    requests += 1;
    return opts.fetch(url, maxBytes);
  };
  robots = await loadRobots(start.origin, opts.agent, fetchPaced);
  const rules = robots;
  const allowed = (url: URL): boolean => rules.isAllowed(url) && inPaths(url);

  const seen = new Set<string>();
  const result: DiscoveryResult = { pagesFound: 0, pagesAdded: 0, truncated: false, gone: new Set(), fromSitemaps: false, warnings: [] };
  const seenCap = opts.maxPages * SEEN_PER_PAGE + 100;
  const accept = async (url: URL): Promise<void> => {
    const key = pageKey(url);
    if (seen.has(key)) return;
    if (seen.size >= seenCap) {
      result.truncated = true;
      return;
    }
    seen.add(key);
    result.pagesFound += 1;
    if (result.pagesAdded >= opts.maxPages) {
      result.truncated = true;
      return;
    }
    result.pagesAdded += 1;
    await opts.onPage(url);
  };

  const given = looksLikeSitemap(start);
  if (given || opts.sitemap !== 'off') {
    const candidates = given ? [start.href] : rules.sitemaps.length > 0 ? rules.sitemaps : [`${start.origin}/sitemap.xml`];
    const warn = (w: SiteWarning) => void (result.warnings.length < MAX_SITE_WARNINGS && result.warnings.push(w));
    const read = await readSitemaps(candidates, origin, fetchPaced, allowed, accept, (n) => (result.truncated ||= n), warn);
    result.fromSitemaps = read > 0;
    if (given || opts.sitemap === 'only' || result.pagesFound > 0) {
      if (read === 0) throw new SourceError('fetch_failed', 'no sitemap of the site could be read', false);
      return result;
    }
  }
  await followLinks(start, origin, opts, fetchPaced, allowed, accept, result);
  return result;
}

/** Reads sitemaps and sitemap indexes breadth first; returns how many were read. */
async function readSitemaps(
  candidates: string[],
  origin: SiteOrigin,
  fetch: DiscoveryFetch,
  allowed: (url: URL) => boolean,
  accept: (url: URL) => Promise<void>,
  truncate: (yes: boolean) => void,
  warn: (w: SiteWarning) => void,
): Promise<number> {
  const queue = candidates.map((c) => pageUrl(c, c, origin)).filter((u): u is URL => u !== undefined);
  const queued = new Set(queue.map((u) => u.href));
  let read = 0;
  while (queue.length > 0) {
    if (read >= MAX_SITEMAPS) return truncate(true), read;
    const url = queue.shift()!;
    let entries;
    try {
      entries = await parseSitemap((await fetch(url.href, SITEMAP_MAX_BYTES)).bytes);
    } catch (err) {
      if (isRetryable(err)) throw err;
      // A sitemap that is missing, blocked, too large or unreadable adds nothing; the others still count.
      // One that answered an HTTP error (a guessed /sitemap.xml that is not there) is no news.
      if (httpStatusOf(err) === undefined) warn({ code: 'sitemap_skipped', url: url.href, message: (err as Error).message });
      continue;
    }
    read += 1;
    if (entries.truncated) truncate(true);
    let turn = performance.now();
    for (const loc of entries.locs) {
      // 50,000 entries checked against robots.txt take a while: the event loop gets its turns.
      if (performance.now() - turn > LOOP_TURN_MS) {
        await nextTurn();
        turn = performance.now();
      }
      const page = pageUrl(loc, url, origin);
      if (!page) continue;
      if (entries.kind === 'index') {
        if (!queued.has(page.href) && queued.size < MAX_SITEMAPS * 4) {
          queued.add(page.href);
          queue.push(page);
        }
      } else if (allowed(page)) {
        await accept(page);
      }
    }
  }
  return read;
}

/** Breadth-first over same-site links from the start page. */
async function followLinks(
  start: URL,
  origin: SiteOrigin,
  opts: DiscoverOptions,
  fetch: DiscoveryFetch,
  allowed: (url: URL) => boolean,
  accept: (url: URL) => Promise<void>,
  result: DiscoveryResult,
): Promise<void> {
  const first = pageUrl(start.href, start, origin)!;
  const queue: { url: URL; depth: number }[] = [{ url: first, depth: 0 }];
  const queued = new Set([pageKey(first)]);
  const maxFetches = opts.maxPages * 2 + 10;
  let fetches = 0;
  while (queue.length > 0) {
    if (result.pagesAdded >= opts.maxPages || fetches >= maxFetches) {
      result.truncated = true;
      result.pagesFound += await countAllowed(queue, allowed);
      return;
    }
    const { url, depth } = queue.shift()!;
    if (!allowed(url)) continue;
    fetches += 1;
    let fetched: FetchedUrl;
    try {
      fetched = await fetch(url.href, PAGE_MAX_BYTES);
    } catch (err) {
      // A start page the address policy refuses ends the discovery at once; any other page is skipped.
      if (depth === 0 && isSourceError(err) && err.code === 'fetch_blocked') throw err;
      const status = httpStatusOf(err);
      if (status === 404 || status === 410) result.gone.add(pageKey(url));
      continue;
    }
    const landed = pageUrl(fetched.finalUrl, fetched.finalUrl, origin) ?? url;
    const html = isHtml(fetched);
    const found = html ? await safeLinks(fetched.bytes) : undefined;
    const canonical = found?.canonical ? pageUrl(found.canonical, landed, origin) : undefined;
    await accept(canonical && allowed(canonical) ? canonical : allowed(landed) ? landed : url);
    if (!found || found.nofollow || depth >= opts.maxDepth) continue;
    const base = (found.base && URL.parse(found.base, landed.href)) || landed;
    for (const href of found.links) {
      const next = pageUrl(href, base, origin);
      if (!next) continue;
      const key = pageKey(next);
      if (queued.has(key)) continue;
      if (queued.size >= opts.maxPages * SEEN_PER_PAGE + 100) {
        result.truncated = true;
        break;
      }
      queued.add(key);
      queue.push({ url: next, depth: depth + 1 });
    }
  }
}

/** How many queued URLs are allowed; up to ten per page, each checked against robots.txt, so the event loop gets its turns. */
async function countAllowed(queue: { url: URL }[], allowed: (url: URL) => boolean): Promise<number> {
  let n = 0;
  let turn = performance.now();
  for (const { url } of queue) {
    if (performance.now() - turn > LOOP_TURN_MS) {
      await nextTurn();
      turn = performance.now();
    }
    if (allowed(url)) n += 1;
  }
  return n;
}

function isHtml(f: FetchedUrl): boolean {
  if (f.contentType) return /html/i.test(f.contentType);
  return /^\s*(<!doctype html|<html)/i.test(Buffer.from(f.bytes.subarray(0, 512)).toString('utf8'));
}

/** Links of a page; a page that cannot be read has none. */
async function safeLinks(bytes: Uint8Array) {
  try {
    return await pageLinks(bytes);
  } catch {
    return undefined;
  }
}

/**
 * A failure worth running the whole discovery again for (the site or the
 * network is down for now). A sitemap's own fault ({@link SitemapError}), a
 * refused address (`fetch_blocked`) and any other final fetch error are not;
 * an HTTP status is the sitemap's, which is skipped.
 */
function isRetryable(err: unknown): boolean {
  if (err instanceof SitemapError) return false;
  if (!isSourceError(err)) return true;
  return err.retryable && httpStatusOf(err) === undefined;
}
