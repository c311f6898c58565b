/**
 * What belongs to a site and when two of its URLs are the same page: the
 * rules discovery applies to every URL it meets (sitemap entries, links,
 * canonical links, redirect targets).
 */

/** Query parameters that track a visit or a session and never change the page. */
const TRACKING_PARAMS = /^(utm_\w+|gclid|dclid|fbclid|msclkid|mc_cid|mc_eid|_ga|_gl|yclid|igshid|ref_src|sessionid|session_id|sid|phpsessid|jsessionid|sessid|cfid|cftoken|aspsessionid\w*)$/i;
/** A session id carried in the path (`/page;jsessionid=ABC`). */
const PATH_SESSION = /;(jsessionid|sessionid|phpsessid|sid)=[^/?#]*/gi;

/** The host without a leading `www.`: a site and its www. twin are one site. */
export function bareHost(host: string): string {
  return host.toLowerCase().replace(/^www\./, '');
}

/** Scheme, host (www.-insensitive) and port of the site that `start` names. */
export interface SiteOrigin {
  protocol: string;
  bareHost: string;
  port: string;
  /** The host as the site's own URL spells it; pages on the www. twin are rewritten to it. */
  host: string;
}

export function siteOrigin(start: URL): SiteOrigin {
  return { protocol: start.protocol, bareHost: bareHost(start.hostname), port: start.port, host: start.host };
}

/** Same scheme, same port, same host up to `www.`. */
export function isSameSite(url: URL, origin: SiteOrigin): boolean {
  return url.protocol === origin.protocol && url.port === origin.port && bareHost(url.hostname) === origin.bareHost;
}

/**
 * A page URL as the site source adds it: http(s) on the site's origin, the
 * host spelled as the site's own URL spells it, without its fragment, its
 * tracking and session parameters or a session id in its path; undefined
 * for anything else (another origin, mailto:, javascript:, an unparsable href).
 */
export function pageUrl(raw: string, base: URL | string, origin: SiteOrigin): URL | undefined {
  const url = URL.parse(raw.trim(), typeof base === 'string' ? base : base.href);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
  if (url.username || url.password || !isSameSite(url, origin)) return undefined;
  url.host = origin.host;
  url.hash = '';
  url.pathname = url.pathname.replace(PATH_SESSION, '');
  for (const name of [...url.searchParams.keys()]) if (TRACKING_PARAMS.test(name)) url.searchParams.delete(name);
  if (url.search === '?') url.search = '';
  return url;
}

/**
 * The key two spellings of one page share: `/docs/` and `/docs` are the same
 * page, and so are query strings that differ only in parameter order.
 */
export function pageKey(url: URL): string {
  const params = [...url.searchParams].sort(([a, av], [b, bv]) => (a === b ? av.localeCompare(bv) : a.localeCompare(b)));
  const query = params.length > 0 ? `?${new URLSearchParams(params).toString()}` : '';
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
  return `${path}${query}`;
}

/** Whether a URL names a sitemap rather than a page. */
export function looksLikeSitemap(url: URL): boolean {
  return /\.xml(\.gz)?$/i.test(url.pathname) || /sitemap/i.test(url.pathname.split('/').pop() ?? '');
}

/**
 * A path glob as a regular expression: `**` matches across segments, `*`
 * within one, `?` one character; everything else is literal. A glob
 * ending in `/` also matches everything below it.
 */
export function globRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*' && glob[i + 1] === '*') {
      out += '.*';
      i += 1;
    } else if (ch === '*') out += '[^/]*';
    else if (ch === '?') out += '[^/]';
    else out += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  if (glob.endsWith('/')) out += '.*';
  return new RegExp(`^${out}$`);
}

/** Include and exclude globs over a URL's path: included (or no include list) and not excluded. */
export function pathFilter(include: string[], exclude: string[]): (url: URL) => boolean {
  const inc = include.map(globRegExp);
  const exc = exclude.map(globRegExp);
  return (url) => {
    const path = decodeURIComponentSafe(url.pathname);
    return (inc.length === 0 || inc.some((r) => r.test(path))) && !exc.some((r) => r.test(path));
  };
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
