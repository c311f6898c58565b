import { setImmediate as nextTurn } from 'node:timers/promises';
import { isSourceError, SourceError } from '../../shared/source-errors.js';
import { MAX_SITE_WARNINGS, type SitemapMode, type SiteWarning } from '../../shared/schemas/site.js';
import { HostBusyError } from '../fetch/host-gate.js';
import type { FetchedUrl } from '../fetch/fetch-url.js';
import { keyDigest, LINK_QUEUE_MAX_CHARS, type DiscoveryState } from './discovery-state.js';
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
/** Waits a discovery takes for 429 and 503 answers; past them such an answer is a failed fetch. */
const MAX_BACKOFFS = 10;
/** The wait after a 429 or 503 without a Retry-After. */
const DEFAULT_BACKOFF_MS = 5_000;

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
  /** Longest Crawl-delay (and Retry-After) honoured, ms (CRAWL_MAX_DELAY_SECONDS). */
  maxDelayMs: number;
  /**
   * Called once per page, in discovery order, for at most `maxPages` pages
   * over the whole discovery; `lastmod`, the sitemap's `<lastmod>` of the
   * page (seconds since the epoch), when it gave one.
   */
  onPage(url: URL, lastmod?: number): Promise<void>;
  /** Whether the site is still to be discovered; asked before each request. Default: always. */
  alive?(): Promise<boolean>;
}

/** How much one step may do: at least one request, then more while under both bounds. */
export interface StepBudget {
  requests: number;
  /** Time (ms since the epoch) after which no further request starts. */
  until: number;
}

export interface DiscoveryResult {
  /** Distinct allowed pages seen (those added and those left past a cap). */
  pagesFound: number;
  pagesAdded: number;
  /** A cap (maxPages, the fetch budget or the memory bound) ended the discovery early. */
  truncated: boolean;
  /** Digests ({@link keyDigest} of {@link pageKey}) of pages seen, and of those that answered 404 or 410. */
  seen: Set<string>;
  gone: Set<string>;
  /** Whether the pages came from sitemaps. */
  fromSitemaps: boolean;
  /** What was skipped on the way (at most {@link MAX_SITE_WARNINGS}). */
  warnings: SiteWarning[];
}

/**
 * Where a step ended: the discovery is over; it must wait until `until`
 * (Crawl-delay, host spacing, a Retry-After, or its step's budget spent, then
 * `until` is now) with its state saved; or the site went away.
 */
export type StepOutcome = { kind: 'done'; result: DiscoveryResult } | { kind: 'wait'; until: number } | { kind: 'gone' };

/** Unwinds a step at a request it may not make yet. */
class Pause {
  constructor(readonly until: number) {}
}
/** Unwinds a step whose site went away. */
class Gone {}

/**
 * Runs one step of a site's discovery from `state`, updating it in place.
 * A discovery finds a site's pages: robots.txt first (its Disallow rules
 * keep pages from being fetched or added; its Crawl-delay, capped at
 * `maxDelayMs`, paces the requests), then its sitemaps (`auto`, `only`, or a
 * sitemap URL given as the site), else links from the start page breadth
 * first up to `maxDepth`. Only same-site URLs count (scheme, host up to
 * `www.`, port), after dropping fragments and tracking parameters, each once;
 * a page's `rel=canonical` on the site stands for it. Memory and requests are
 * bounded by `maxPages`: however endless the site's link space, a discovery
 * remembers at most ten URLs and makes at most two requests per page it may add.
 *
 * A step never waits: when the next request is not due yet (Crawl-delay,
 * host spacing, a 429 or 503 with its Retry-After) or the step's budget is
 * spent, it returns `wait`, and the caller saves the state and runs the next
 * step later. Throws what ends the discovery for this attempt (a retryable
 * error is retried from the state saved last).
 */
export async function discoveryStep(opts: DiscoverOptions, state: DiscoveryState, budget: StepBudget): Promise<StepOutcome> {
  const step = new Step(opts, state, budget);
  try {
    const result = await step.run();
    step.save();
    return { kind: 'done', result };
  } catch (err) {
    if (err instanceof Gone) return { kind: 'gone' };
    if (!(err instanceof Pause)) throw err;
    step.save();
    return { kind: 'wait', until: err.until };
  }
}

class Step {
  private readonly origin: SiteOrigin;
  private readonly start: URL;
  private readonly inPaths: (url: URL) => boolean;
  private readonly seen: Set<string>;
  private readonly queued: Set<string>;
  private readonly gone: Set<string>;
  private readonly seenCap: number;
  private rules: RobotsRules | undefined;
  private made = 0;

  constructor(
    private readonly opts: DiscoverOptions,
    private readonly s: DiscoveryState,
    private readonly budget: StepBudget,
  ) {
    this.start = new URL(opts.url);
    this.origin = siteOrigin(this.start);
    this.inPaths = pathFilter(opts.include, opts.exclude);
    this.seen = new Set(s.seen);
    this.queued = new Set(s.queued);
    this.gone = new Set(s.gone);
    this.seenCap = opts.maxPages * SEEN_PER_PAGE + 100;
  }

  save(): void {
    this.s.seen = [...this.seen];
    this.s.queued = [...this.queued];
    this.s.gone = [...this.gone];
  }

  async run(): Promise<DiscoveryResult> {
    const s = this.s;
    if (s.phase === 'robots') await this.readRobots();
    else this.rules = await rulesFrom(s.robots ?? '', this.start.origin, this.opts);
    if (s.phase === 'sitemaps') await this.readSitemaps();
    if (s.phase === 'links') await this.followLinks();
    s.phase = 'done';
    return { pagesFound: s.pagesFound, pagesAdded: s.pagesAdded, truncated: s.truncated, seen: this.seen, gone: this.gone, fromSitemaps: s.fromSitemaps, warnings: s.warnings };
  }

  private allowed(url: URL): boolean {
    return this.rules!.isAllowed(url) && this.inPaths(url);
  }

  /**
   * Makes one request when it is due and the step's budget allows; else
   * unwinds the step ({@link Pause}). A busy host, a 429 or a 503 pauses the
   * discovery too, with the request to be made again.
   */
  private async request(url: string, maxBytes: number): Promise<FetchedUrl> {
    const s = this.s;
    const now = Date.now();
    if (now < s.nextAt) throw new Pause(s.nextAt);
    if (this.made > 0 && (this.made >= this.budget.requests || now >= this.budget.until)) throw new Pause(now);
    if (this.opts.alive && !(await this.opts.alive())) throw new Gone();
    this.made += 1;
    s.requests += 1;
    try {
      return await this.opts.fetch(url, maxBytes);
    } catch (err) {
      if (err instanceof HostBusyError) throw new Pause((s.nextAt = Date.now() + err.delayMs));
      const status = httpStatusOf(err);
      if ((status === 429 || status === 503) && s.backoffs < MAX_BACKOFFS) {
        s.backoffs += 1;
        throw new Pause((s.nextAt = Date.now() + Math.min(retryAfterMs(err) ?? DEFAULT_BACKOFF_MS, this.opts.maxDelayMs)));
      }
      throw err;
    } finally {
      // The Crawl-delay runs from the end of a request to the start of the next.
      const delayMs = this.rules?.delayMs ?? 0;
      if (delayMs > 0) s.nextAt = Math.max(s.nextAt, Date.now() + delayMs);
    }
  }

  private async readRobots(): Promise<void> {
    const s = this.s;
    let text = '';
    let unwound: unknown;
    try {
      this.rules = await loadRobots(
        this.start.origin,
        this.opts.agent,
        async (url, maxBytes) => {
          try {
            const fetched = await this.request(url, maxBytes);
            text = Buffer.from(fetched.bytes).toString('utf8');
            return fetched;
          } catch (err) {
            if (err instanceof Pause || err instanceof Gone) unwound = err;
            throw err;
          }
        },
        this.opts.maxDelayMs,
      );
    } catch (err) {
      throw unwound ?? err;
    }
    s.robots = text;
    // The first request after robots.txt waits its Crawl-delay too.
    if (this.rules.delayMs > 0) s.nextAt = Math.max(s.nextAt, Date.now() + this.rules.delayMs);
    const given = looksLikeSitemap(this.start);
    if (given || this.opts.sitemap !== 'off') {
      const candidates = given ? [this.start.href] : this.rules.sitemaps.length > 0 ? this.rules.sitemaps : [`${this.start.origin}/sitemap.xml`];
      const urls = candidates.map((c) => pageUrl(c, c, this.origin)?.href).filter((u): u is string => u !== undefined);
      s.sitemaps = [...new Set(urls)].slice(0, MAX_SITEMAPS * 4);
      s.sitemapsQueued = [...s.sitemaps];
      s.phase = 'sitemaps';
    } else {
      this.startLinks();
    }
  }

  /** Reads sitemaps and sitemap indexes breadth first, then decides whether the links are followed too. */
  private async readSitemaps(): Promise<void> {
    const s = this.s;
    while (s.sitemaps.length > 0) {
      if (s.sitemapsRead >= MAX_SITEMAPS) {
        s.truncated = true;
        s.sitemaps = [];
        break;
      }
      const url = new URL(s.sitemaps[0]!);
      let entries;
      try {
        entries = await parseSitemap((await this.request(url.href, SITEMAP_MAX_BYTES)).bytes);
      } catch (err) {
        if (err instanceof Pause || err instanceof Gone || isRetryable(err)) throw err;
        s.sitemaps.shift();
        // A sitemap that is missing, blocked, too large or unreadable adds nothing; the others still count.
        // One that answered an HTTP error (a guessed /sitemap.xml that is not there) is no news.
        if (httpStatusOf(err) === undefined) this.warn({ code: 'sitemap_skipped', url: url.href, message: (err as Error).message });
        continue;
      }
      s.sitemaps.shift();
      s.sitemapsRead += 1;
      s.fromSitemaps = true;
      if (entries.truncated) s.truncated = true;
      let turn = performance.now();
      for (const [i, loc] of entries.locs.entries()) {
        // 50,000 entries checked against robots.txt take a while: the event loop gets its turns.
        if (performance.now() - turn > LOOP_TURN_MS) {
          await nextTurn();
          turn = performance.now();
        }
        const page = pageUrl(loc, url, this.origin);
        if (!page) continue;
        if (entries.kind === 'index') {
          if (!s.sitemapsQueued.includes(page.href) && s.sitemapsQueued.length < MAX_SITEMAPS * 4) {
            s.sitemapsQueued.push(page.href);
            s.sitemaps.push(page.href);
          }
        } else if (this.allowed(page)) {
          await this.accept(page, entries.lastmods[i] || undefined);
        }
      }
    }
    const given = looksLikeSitemap(this.start);
    if (given || this.opts.sitemap === 'only' || s.pagesFound > 0) {
      if (s.sitemapsRead === 0) throw new SourceError('fetch_failed', 'no sitemap of the site could be read', false);
      s.phase = 'done';
      return;
    }
    this.startLinks();
  }

  private startLinks(): void {
    const first = pageUrl(this.start.href, this.start, this.origin)!;
    this.s.links = [[first.href, 0]];
    this.s.linkChars = first.href.length;
    this.queued.add(keyDigest(pageKey(first)));
    this.s.phase = 'links';
  }

  /** Breadth-first over same-site links from the start page. */
  private async followLinks(): Promise<void> {
    const s = this.s;
    const maxFetches = this.opts.maxPages * 2 + 10;
    while (s.links.length > 0) {
      if (s.pagesAdded >= this.opts.maxPages || s.fetches >= maxFetches) {
        s.truncated = true;
        s.pagesFound += await this.countAllowed(s.links);
        s.links = [];
        return;
      }
      const [href, depth] = s.links[0]!;
      const url = new URL(href);
      const next = (): void => {
        s.links.shift();
        s.linkChars -= href.length;
      };
      if (!this.allowed(url)) {
        next();
        continue;
      }
      let fetched: FetchedUrl;
      try {
        fetched = await this.request(href, PAGE_MAX_BYTES);
      } catch (err) {
        if (err instanceof Pause || err instanceof Gone) throw err;
        // A start page the address policy refuses ends the discovery at once; any other page is skipped.
        if (depth === 0 && isSourceError(err) && err.code === 'fetch_blocked') throw err;
        next();
        s.fetches += 1;
        const status = httpStatusOf(err);
        if (status === 404 || status === 410) this.gone.add(keyDigest(pageKey(url)));
        continue;
      }
      next();
      s.fetches += 1;
      const landed = pageUrl(fetched.finalUrl, fetched.finalUrl, this.origin) ?? url;
      const found = isHtml(fetched) ? await safeLinks(fetched.bytes) : undefined;
      const canonical = found?.canonical ? pageUrl(found.canonical, landed, this.origin) : undefined;
      await this.accept(canonical && this.allowed(canonical) ? canonical : this.allowed(landed) ? landed : url);
      if (!found || found.nofollow || depth >= this.opts.maxDepth) continue;
      const base = (found.base && URL.parse(found.base, landed.href)) || landed;
      for (const link of found.links) {
        const page = pageUrl(link, base, this.origin);
        if (!page) continue;
        const key = keyDigest(pageKey(page));
        if (this.queued.has(key)) continue;
        if (this.queued.size >= this.seenCap || s.linkChars + page.href.length > LINK_QUEUE_MAX_CHARS) {
          s.truncated = true;
          break;
        }
        this.queued.add(key);
        s.links.push([page.href, depth + 1]);
        s.linkChars += page.href.length;
      }
    }
  }

  /** Keeps a warning for the site, at most {@link MAX_SITE_WARNINGS} over the whole discovery. */
  private warn(w: SiteWarning): void {
    if (this.s.warnings.length < MAX_SITE_WARNINGS) this.s.warnings.push(w);
  }

  /** How many queued URLs are allowed; up to ten per page, each checked against robots.txt, so the event loop gets its turns. */
  private async countAllowed(links: [string, number][]): Promise<number> {
    let n = 0;
    let turn = performance.now();
    for (const [href] of links) {
      if (performance.now() - turn > LOOP_TURN_MS) {
        await nextTurn();
        turn = performance.now();
      }
      if (this.allowed(new URL(href))) n += 1;
    }
    return n;
  }

  private async accept(url: URL, lastmod?: number): Promise<void> {
    const s = this.s;
    const key = keyDigest(pageKey(url));
    if (this.seen.has(key)) return;
    if (this.seen.size >= this.seenCap) {
      s.truncated = true;
      return;
    }
    this.seen.add(key);
    s.pagesFound += 1;
    if (s.pagesAdded >= this.opts.maxPages) {
      s.truncated = true;
      return;
    }
    s.pagesAdded += 1;
    await this.opts.onPage(url, lastmod);
  }
}

/** The rules of a robots.txt read in an earlier step (empty: none, everything allowed). */
function rulesFrom(text: string, origin: string, opts: DiscoverOptions): Promise<RobotsRules> {
  const bytes = Buffer.from(text, 'utf8');
  return loadRobots(origin, opts.agent, async (url) => ({ bytes, finalUrl: url, status: 200 }), opts.maxDelayMs);
}

/** The wait a 429 or 503 asked for (Retry-After), when it said. */
function retryAfterMs(err: unknown): number | undefined {
  return isSourceError(err) && err.retryAfterMs !== undefined ? err.retryAfterMs : undefined;
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
