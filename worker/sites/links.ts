import { scanMarkup } from './markup-scan.js';

/** Links read from one page at most: a page of a million anchors costs no more than this. */
export const MAX_LINKS_PER_PAGE = 5_000;
/** Time one page's links may take of the event loop in all; a page past it keeps the links read so far. */
export const PAGE_SCAN_BUDGET_MS = 2_000;
/** Longest attribute value kept; an `href` longer than this is no link. */
const ATTR_MAX_CHARS = 8 * 1024;

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

/** The elements read, and the attributes read of them. */
const WANTED: Record<string, ReadonlySet<string>> = {
  a: new Set(['href', 'rel']),
  area: new Set(['href', 'rel']),
  link: new Set(['href', 'rel']),
  base: new Set(['href']),
  meta: new Set(['name', 'content']),
};

/**
 * Reads the links of an HTML page in one linear pass of htmlparser2's
 * tokenizer (no DOM: see `scanMarkup`), giving the event loop a turn every
 * few milliseconds. Nothing in the page is fetched here; `rel=nofollow`
 * links are skipped, as crawlers do. As in a DOM, the first `<base href>`,
 * the first canonical `<link>` and the first `<meta name=robots>` count, and
 * script, style, comments and attribute entities are understood. At most
 * {@link MAX_LINKS_PER_PAGE} links are kept, and a page that takes more than
 * {@link PAGE_SCAN_BUDGET_MS} of the loop keeps those read so far.
 */
export async function pageLinks(html: string | Uint8Array): Promise<PageLinks> {
  const text = typeof html === 'string' ? html : Buffer.from(html.buffer, html.byteOffset, html.byteLength).toString('utf8');
  const out: PageLinks = { links: [], nofollow: false };
  let canonicalSeen = false;
  let robotsSeen = false;
  let baseSeen = false;
  let tag = '';
  let wanted: ReadonlySet<string> | undefined;
  let attrs = new Map<string, string>();
  let attr = '';
  let value: string | undefined = '';

  const element = (): void => {
    const href = attrs.get('href');
    const rel = ` ${(attrs.get('rel') ?? '').toLowerCase()} `.replace(/\s+/g, ' ');
    if (tag === 'a' || tag === 'area') {
      if (href !== undefined && !rel.includes(' nofollow ') && out.links.length < MAX_LINKS_PER_PAGE) out.links.push(href);
    } else if (tag === 'link' && rel.includes(' canonical ') && !canonicalSeen) {
      canonicalSeen = true;
      if (href) out.canonical = href;
    } else if (tag === 'base' && href !== undefined && !baseSeen) {
      baseSeen = true;
      if (href) out.base = href;
    } else if (tag === 'meta' && attrs.get('name')?.toLowerCase() === 'robots' && !robotsSeen) {
      robotsSeen = true;
      out.nofollow = /\b(nofollow|none)\b/.test((attrs.get('content') ?? '').toLowerCase());
    }
  };

  await scanMarkup([text], { xmlMode: false, budgetMs: PAGE_SCAN_BUDGET_MS }, (ctx) => {
    const add = (s: string) => {
      if (value !== undefined) value = value.length + s.length > ATTR_MAX_CHARS ? undefined : value + s;
    };
    return {
      onopentagname(start, end) {
        tag = end - start > 8 ? '' : ctx.text(start, end).toLowerCase();
        wanted = WANTED[tag];
        if (wanted && attrs.size > 0) attrs = new Map();
      },
      onattribname(start, end) {
        attr = wanted && end - start <= 16 ? ctx.text(start, end).toLowerCase() : '';
        value = '';
      },
      onattribdata(start, end) {
        if (wanted?.has(attr)) add(ctx.text(start, end));
      },
      onattribentity(codepoint) {
        if (wanted?.has(attr)) add(String.fromCodePoint(codepoint));
      },
      onattribend() {
        // The first of a repeated attribute counts, as in a DOM.
        if (wanted?.has(attr) && value !== undefined && !attrs.has(attr)) attrs.set(attr, value);
      },
      onopentagend: () => wanted && element(),
      onselfclosingtag: () => wanted && element(),
    };
  });
  return out;
}
