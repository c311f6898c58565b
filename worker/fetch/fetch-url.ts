import type { LookupFunction, Socket } from 'node:net';
import type { PrivateAccess } from '../../shared/net/address-policy.js';
import { Agent } from 'undici';
import { header, readCapped } from './capped-body.js';
import { toSourceError } from './fetch-errors.js';
import { guardedConnector, type ConnectFunction } from './guarded-connector.js';
import { HostBusyError, hostKey, HostLimiterUnavailableError, type HostGate, type HostLease } from './host-gate.js';
import { requestFollowingRedirects } from './redirects.js';
import { responseFilename } from './response-filename.js';

export type { ConnectFunction, ConnectTarget } from './guarded-connector.js';

/** Options of {@link fetchUrl}. */
export interface FetchUrlOptions {
  /** Cap on the decoded body in bytes; reading byte maxBytes + 1 fails with `file_too_large`. */
  maxBytes: number;
  /** Total deadline in ms for the whole fetch, redirects and body included (callers use 30000). */
  timeoutMs: number;
  /** Deadline in ms for each TCP/TLS connect. Default 5000. */
  connectTimeoutMs?: number;
  /** Redirects followed before `fetch_failed`. Default 5. */
  maxRedirects?: number;
  /**
   * URL_FETCH_ALLOW_PRIVATE (`true`) or URL_FETCH_ALLOW_CIDRS (a list): see
   * `DestinationPolicy` (metadata addresses and names stay forbidden).
   */
  allowPrivate: PrivateAccess;
  /** DNS lookup, called with `{ all: true }`; may answer one address or an array. Default `dns.lookup`. */
  lookup?: LookupFunction;
  /** Low-level connect, for tests. Default `net.connect` / `tls.connect`. */
  connect?: ConnectFunction;
  /** User-Agent header. Default `kb-ingest/0.1 (+url-source)`. */
  userAgent?: string;
  /**
   * Per-host fetch slots. Each host the fetch talks to (the URL's, then each
   * redirect target on another host) is entered through it; without it the
   * fetch is not limited per host.
   */
  hosts?: HostGate;
  /** A slot already taken for the URL's host; the fetch takes it over and releases it when done. */
  lease?: HostLease;
  /** Whether a redirect to `to` is followed; a refused one fails `fetch_blocked` (site discovery stays on its origin). */
  allowRedirect?: (to: URL) => boolean;
  /**
   * Validators of the copy already extracted (a refresh): sent as
   * If-None-Match / If-Modified-Since; a 304 answer resolves with
   * `notModified` and no body.
   */
  conditional?: { etag?: string; lastModified?: string };
}

/** A fetched response body with what type detection and naming need. */
export interface FetchedUrl {
  bytes: Buffer;
  /** The Content-Type header as sent, if any (type detection happens elsewhere). */
  contentType?: string;
  /** The URL of the last hop, after redirects. */
  finalUrl: string;
  /** From Content-Disposition, else the last path segment of `finalUrl`; sanitised. */
  filename?: string;
  status: number;
  /** The origin answered 304 to a conditional request: the copy held is current. */
  notModified?: boolean;
  /** Validators of this response (ETag, Last-Modified), for the next conditional request. */
  etag?: string;
  lastModified?: string;
}

const DEFAULT_USER_AGENT = 'kb-ingest/0.1 (+url-source)';

/**
 * Fetches a URL source for extraction, refusing anything that could reach an
 * internal service: http/https only; internal host names and service ports
 * refused before DNS; every hop's address checked (IP literals before any
 * connection, host names on every address the lookup returns) inside one
 * connector for both schemes, and the socket goes to the address that was
 * checked; redirects followed by hand and re-checked; the decoded body
 * capped; one deadline over it all. Failures are `SourceError`s with
 * user-facing messages, except those of the per-host gate (`HostBusyError`,
 * `HostLimiterUnavailableError`), which are the caller's to handle.
 *
 * With `hosts`, a slot of the host is held while it is being talked to, and
 * the first request to it waits for the host's spacing: a redirect to the
 * same host stays in the slot (no new start), one to another host gives the
 * slot back and then takes the new host's (never two at once, so two
 * fetches redirecting to each other's hosts cannot wait on each other).
 */
export async function fetchUrl(url: string, opts: FetchUrlOptions): Promise<FetchedUrl> {
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const sockets = new Set<Socket>();
  const connect = guardedConnector({
    allowPrivate: opts.allowPrivate,
    connectTimeoutMs: opts.connectTimeoutMs ?? 5000,
    deadline,
    sockets,
    ...(opts.lookup && { lookup: opts.lookup }),
    ...(opts.connect && { connect: opts.connect }),
  });
  const agent = new Agent({ connect, headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs });
  const trail: URL[] = [];
  let lease = opts.lease;
  const hosts = opts.hosts;
  const enterHost = async (hop: URL): Promise<void> => {
    if (hosts === undefined) return;
    const host = hostKey(hop);
    if (lease?.host !== host) {
      await lease?.release();
      lease = undefined;
      lease = await hosts.acquire(host, deadline);
    }
    await lease.start(deadline);
  };
  try {
    const redirectOptions = {
      allowPrivate: opts.allowPrivate,
      maxRedirects: opts.maxRedirects ?? 5,
      userAgent: opts.userAgent ?? DEFAULT_USER_AGENT,
      deadline,
      enterHost,
      ...(opts.allowRedirect && { allowRedirect: opts.allowRedirect }),
      ...(opts.conditional && { conditional: opts.conditional }),
    };
    const { res, url: final } = await requestFollowingRedirects(agent, url, redirectOptions, trail);
    const etag = header(res.headers, 'etag');
    const lastModified = header(res.headers, 'last-modified');
    const validators = { ...(etag !== undefined && { etag }), ...(lastModified !== undefined && { lastModified }) };
    if (res.statusCode === 304) {
      await res.body.dump().catch(() => undefined);
      return { bytes: Buffer.alloc(0), finalUrl: final.href, status: 304, notModified: true, ...validators };
    }
    const bytes = await readCapped(res.body, res.headers, opts.maxBytes, deadline);
    const contentType = header(res.headers, 'content-type');
    const filename = responseFilename(header(res.headers, 'content-disposition'), final);
    return {
      bytes,
      finalUrl: final.href,
      status: res.statusCode,
      ...validators,
      ...(contentType !== undefined && { contentType }),
      ...(filename !== undefined && { filename }),
    };
  } catch (err) {
    if (err instanceof HostBusyError || err instanceof HostLimiterUnavailableError) throw err;
    throw toSourceError(err, deadline, trail.at(-1)?.hostname ?? '', opts.timeoutMs);
  } finally {
    // The agent closes the sockets it owns; this also catches one still connecting.
    for (const socket of sockets) socket.destroy();
    await agent.destroy().catch(() => undefined);
    await lease?.release();
  }
}
