import * as cheerio from 'cheerio';

/** Links read from one page at most: a page of a million anchors costs no more than this. */
export const MAX_LINKS_PER_PAGE = 5_000;

/** What discovery takes from an HTML page. */
export interface PageLinks {
  /** `<link rel=canonical href>`, as written. */
  canonical?: string;
  /** `<a href>` and `<area href>` values, as written, in document order. */
  links: string[];
  /** `<meta name=robots content=nofollow>` (or none): the page's links are not followed. */
  nofollow: boolean;
  /** `<base href>`, against which relative links resolve. */
  base?: string;
}

/**
 * Reads the links of an HTML page. Nothing in the page is fetched here;
 * `rel=nofollow` links are skipped, as crawlers do.
 */
export function pageLinks(html: string): PageLinks {
  const $ = cheerio.load(html, { scriptingEnabled: false });
  const robots = ($('meta[name="robots" i]').attr('content') ?? '').toLowerCase();
  const out: PageLinks = { links: [], nofollow: /\b(nofollow|none)\b/.test(robots) };
  const canonical = $('link[rel~="canonical" i]').first().attr('href');
  if (canonical) out.canonical = canonical;
  const base = $('base[href]').first().attr('href');
  if (base) out.base = base;
  $('a[href], area[href]').each((_, el) => {
    if (out.links.length >= MAX_LINKS_PER_PAGE) return false;
    const rel = ($(el).attr('rel') ?? '').toLowerCase();
    if (!/\bnofollow\b/.test(rel)) out.links.push($(el).attr('href')!);
    return undefined;
  });
  return out;
}
