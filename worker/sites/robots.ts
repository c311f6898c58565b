import { createRequire } from 'node:module';
import { isSourceError, SourceError } from '../../shared/source-errors.js';
import { MAX_SOURCE_URL_LENGTH } from '../../shared/net/url-policy.js';
import type { FetchedUrl } from '../fetch/fetch-url.js';

/** Largest robots.txt read (Google reads the first 500 KiB). */
export const ROBOTS_MAX_BYTES = 512 * 1024;
/** Allow and Disallow lines read at most; a robots.txt with more is not crawled. */
export const ROBOTS_MAX_RULES = 5_000;
/**
 * Characters of patterns with `*` read at most, all groups together: matching
 * one against a URL costs its length times the URL's, for every URL checked.
 */
export const ROBOTS_MAX_WILDCARD_CHARS = 4_096;
/** Longest Crawl-delay honoured by default (CRAWL_MAX_DELAY_SECONDS); a site asking for more is crawled at this pace. */
export const MAX_CRAWL_DELAY_MS = 30_000;

/** A site's robots.txt rules for this service. */
export interface RobotsRules {
  isAllowed(url: URL): boolean;
  /** The pause between two requests the site asks for (Crawl-delay), capped at `maxDelayMs`. */
  delayMs: number;
  /** `Sitemap:` lines, as written. */
  sitemaps: string[];
}

/** The parts of robots-parser's Robot used here. */
interface Robot {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
}
// A CommonJS module whose typings declare an ES default export it does not have.
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, contents: string) => Robot;

const ALLOW_ALL: RobotsRules = { isAllowed: () => true, delayMs: 0, sitemaps: [] };

/** The HTTP status of a fetch that ended in a non-2xx answer, if that is how it ended. */
export function httpStatusOf(err: unknown): number | undefined {
  if (!isSourceError(err) || err.code !== 'http_status') return undefined;
  const m = /answered (\d{3})/.exec(err.message);
  return m ? Number(m[1]) : undefined;
}

/**
 * Reads `/robots.txt` of the site's origin with a maintained parser
 * (robots-parser: groups by user agent, Allow/Disallow with `*` and `$`,
 * Crawl-delay, Sitemap). A missing file (4xx) allows everything, as RFC 9309
 * says; an unreachable one (5xx or no answer) fails the discovery, since
 * the site's wishes are then unknown: for another attempt when the failure
 * may pass, at once (`fetch_blocked`) when the address is refused. A file
 * with more rules than each URL's check can afford ({@link overRuleBounds})
 * fails it too. `agent` is the product token the groups are matched against
 * (`kb-ingest`); `maxDelayMs` caps the Crawl-delay (default {@link MAX_CRAWL_DELAY_MS}).
 */
export async function loadRobots(
  origin: string,
  agent: string,
  fetch: (url: string, maxBytes: number) => Promise<FetchedUrl>,
  maxDelayMs = MAX_CRAWL_DELAY_MS,
): Promise<RobotsRules> {
  const url = `${origin}/robots.txt`;
  let fetched: FetchedUrl;
  try {
    fetched = await fetch(url, ROBOTS_MAX_BYTES);
  } catch (err) {
    const status = httpStatusOf(err);
    if (status !== undefined && status >= 400 && status < 500) return ALLOW_ALL;
    if (isSourceError(err) && err.code === 'file_too_large') {
      throw new SourceError('fetch_failed', `the site's robots.txt is larger than ${ROBOTS_MAX_BYTES} bytes`, false);
    }
    // A refused address is final, as is any fetch error that says so; only the network and 5xx/429 are worth another try.
    if (isSourceError(err) && err.code === 'fetch_blocked') throw err;
    const retryable = isSourceError(err) ? err.retryable : true;
    throw new SourceError('fetch_failed', `the site's robots.txt could not be read (${isSourceError(err) ? err.message : 'fetch failed'})`, retryable);
  }
  const text = Buffer.from(fetched.bytes).toString('utf8');
  const tooMany = overRuleBounds(text);
  if (tooMany) throw new SourceError('fetch_failed', `the site's robots.txt ${tooMany}, more than the crawler reads`, false);
  const robots = robotsParser(url, text);
  const delay = robots.getCrawlDelay(agent);
  return {
    // No source URL is longer; a bound on the URL is a bound on each rule's matching.
    isAllowed: (page) => page.href.length <= MAX_SOURCE_URL_LENGTH && robots.isAllowed(page.href, agent) !== false,
    delayMs: Math.min(Math.max(0, (delay ?? 0) * 1000), maxDelayMs),
    sitemaps: robots.getSitemaps(),
  };
}

/**
 * Why a robots.txt is over the bounds on its rules ({@link ROBOTS_MAX_RULES},
 * {@link ROBOTS_MAX_WILDCARD_CHARS}), if it is. Every URL discovery meets is
 * checked against the rules, so their count and their wildcards bound the
 * time each check takes; a site whose rules cannot be honoured cheaply is
 * not crawled rather than crawled against its wishes.
 */
function overRuleBounds(text: string): string | undefined {
  let rules = 0;
  let wildcardChars = 0;
  for (const line of text.split('\n')) {
    const m = /^\s*(?:dis)?allow\s*:\s*([^\s#]*)/i.exec(line);
    if (!m) continue;
    rules += 1;
    if (m[1]!.includes('*')) wildcardChars += m[1]!.length;
  }
  if (rules > ROBOTS_MAX_RULES) return `has ${rules} Allow and Disallow lines (at most ${ROBOTS_MAX_RULES})`;
  if (wildcardChars > ROBOTS_MAX_WILDCARD_CHARS) return `has ${wildcardChars} characters of patterns with * (at most ${ROBOTS_MAX_WILDCARD_CHARS})`;
  return undefined;
}
