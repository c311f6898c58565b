import type { Agent, Dispatcher } from 'undici';
import type { PrivateAccess } from '../../shared/net/address-policy.js';
import { SourceError } from '../../shared/source-errors.js';
import { checkSourceUrl } from '../../shared/net/url-policy.js';
import { discard, header } from './capped-body.js';
import { statusError } from './fetch-errors.js';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** How {@link requestFollowingRedirects} asks and what it follows. */
export interface RedirectOptions {
  allowPrivate: PrivateAccess;
  maxRedirects: number;
  userAgent: string;
  /** The fetch's total deadline, shared by every hop. */
  deadline: AbortSignal;
  /** Called with each hop's URL before its request (the per-host slot); may wait or throw. */
  enterHost?: (hop: URL) => Promise<void>;
  /** Whether a redirect to `to` may be followed (after the URL policy); one refused fails `fetch_blocked`. Default: all. */
  allowRedirect?: (to: URL) => boolean;
  /** Validators of a copy already held: sent as If-None-Match / If-Modified-Since, and a 304 is then an answer. */
  conditional?: { etag?: string; lastModified?: string };
}

/**
 * GETs `url` and follows redirects by hand (fetch alone would follow 20,
 * unchecked): every hop is checked by the URL policy before its request, and
 * its connection by the agent's guarded connector; more than `maxRedirects`
 * fails `fetch_failed`. Resolves with the 2xx response and its URL; a non-2xx
 * final answer fails `http_status`. Each hop's URL is pushed onto `trail` as
 * it is requested, so an error can name the host it happened at.
 */
export async function requestFollowingRedirects(agent: Agent, url: string, opts: RedirectOptions, trail: URL[]) {
  let current = checkHop(url, opts.allowPrivate, 'the URL');
  trail.push(current);
  for (let redirects = 0; ; redirects++) {
    await opts.enterHost?.(current);
    const res: Dispatcher.ResponseData = await agent.request({
      origin: current.origin,
      path: current.pathname + current.search,
      method: 'GET',
      headers: {
        'user-agent': opts.userAgent,
        accept: '*/*',
        'accept-encoding': 'identity',
        ...(opts.conditional?.etag && { 'if-none-match': opts.conditional.etag }),
        ...(opts.conditional?.lastModified && { 'if-modified-since': opts.conditional.lastModified }),
      },
      signal: opts.deadline,
    });
    const location = header(res.headers, 'location');
    if (REDIRECT_STATUSES.has(res.statusCode) && location !== undefined) {
      discard(res.body);
      if (redirects >= opts.maxRedirects) {
        throw new SourceError('fetch_failed', `too many redirects (more than ${opts.maxRedirects})`, false);
      }
      current = checkHop(URL.parse(location, current.href)?.href ?? location, opts.allowPrivate, 'the redirect target');
      if (opts.allowRedirect && !opts.allowRedirect(current)) {
        throw new SourceError('fetch_blocked', 'the redirect target is outside the site', false);
      }
      trail.push(current);
      continue;
    }
    if (res.statusCode === 304 && opts.conditional) return { res, url: current };
    if (res.statusCode < 200 || res.statusCode > 299) {
      discard(res.body);
      throw statusError(res.statusCode, header(res.headers, 'retry-after'));
    }
    return { res, url: current };
  }
}

/** Scheme, syntax, host name, port and IP-literal rules of one hop, before any lookup or connection. */
function checkHop(raw: string, allowPrivate: PrivateAccess, what: string): URL {
  const checked = checkSourceUrl(raw, { allowPrivate });
  if (!checked.ok) throw new SourceError('fetch_blocked', `${what} is not allowed: it ${checked.message}`, false);
  return new URL(checked.url);
}
