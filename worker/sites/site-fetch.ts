import type { Config } from '../../shared/runtime/config.js';
import type { StoredSite } from '../../shared/store/site-records.js';
import type { HostGate } from '../fetch/host-gate.js';
import { fetchUrl, type FetchUrlOptions } from '../fetch/fetch-url.js';
import type { DiscoveryFetch } from './discover.js';
import { isSameSite, siteOrigin } from './site-url.js';
import { privateAccess } from '../../shared/net/address-policy.js';

/**
 * The fetch of a site's discovery: the URL sources' guarded fetcher (SSRF
 * guard, redirect re-check, size and time caps, per-host slots and
 * spacing), with the same User-Agent, refusing redirects off the site's
 * origin. When its host's slots are all taken it throws HostBusyError
 * (after the gate's brief wait), and the discovery goes back to the queue
 * until one is due, as a URL source does.
 */
export function siteFetcher(config: Config, hosts: HostGate | undefined, overrides?: Pick<FetchUrlOptions, 'lookup' | 'connect'>): (site: StoredSite) => DiscoveryFetch {
  return (site) => {
    const origin = siteOrigin(new URL(site.url));
    return (url, maxBytes) =>
      fetchUrl(url, {
        maxBytes,
        timeoutMs: config.URL_FETCH_TIMEOUT_MS,
        allowPrivate: privateAccess(config),
        userAgent: config.URL_FETCH_USER_AGENT,
        allowRedirect: (to) => isSameSite(to, origin),
        ...(hosts && { hosts }),
        ...overrides,
      });
  };
}
