import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { STATUS_CODES, type IncomingHttpHeaders } from 'node:http';
import net, { type LookupFunction, type Socket } from 'node:net';
import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tls from 'node:tls';
import zlib from 'node:zlib';
import { Agent, type buildConnector } from 'undici';
import { SourceError, isSourceError } from '../shared/source-errors.js';
import { checkSourceUrl } from '../shared/url-policy.js';
import { isAllowedAddress, stripBrackets } from './address-policy.js';

/** Where a socket is about to be opened: always an IP address that passed the policy. */
export interface ConnectTarget {
  /** The validated IP address, never a host name, so nothing resolves it again. */
  address: string;
  port: number;
  protocol: 'http:' | 'https:';
  /** TLS server name (SNI and certificate check) when the URL names a host; absent for IP literals. */
  servername?: string;
}

/** Opens a TCP (http:) or TLS (https:) socket to a validated target; the fetcher waits for connect/secureConnect. */
export type ConnectFunction = (target: ConnectTarget) => Socket;

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
  /** URL_FETCH_ALLOW_PRIVATE: lifts only the private-address rule (metadata addresses stay forbidden). */
  allowPrivate: boolean;
  /** DNS lookup, called with `{ all: true }`; may answer one address or an array. Default `dns.lookup`. */
  lookup?: LookupFunction;
  /** Low-level connect, for tests. Default `net.connect` / `tls.connect`. */
  connect?: ConnectFunction;
  /** User-Agent header. Default `kb-ingest/0.1 (+url-source)`. */
  userAgent?: string;
}

/** A fetched response body with what type detection and naming need. */
export interface FetchedUrl {
  bytes: Buffer;
  /** The Content-Type header as sent, if any (type detection happens elsewhere). */
  contentType?: string;
  /** The URL of the last hop, after redirects. */
  finalUrl: string;
  /** From Content-Disposition, else the last path segment of `finalUrl`. */
  filename?: string;
  status: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const DEFAULT_USER_AGENT = 'kb-ingest/0.1 (+url-source)';
const TLS_ERROR = /^(ERR_TLS_|ERR_SSL_|UNABLE_TO_|CERT_)|_CERT|SELF_SIGNED|_SIGNATURE/;

/** What the connector of one fetch needs: the policy, the total deadline, and the sockets it opened. */
interface Guard {
  opts: FetchUrlOptions;
  deadline: AbortSignal;
  sockets: Set<Socket>;
}

/**
 * Fetches a URL source for extraction, refusing anything that could reach an
 * internal service (THREATS B1-B10): http/https only; every hop's address is
 * checked (IP literals before any connection, host names on every address the
 * lookup returns) inside the connector of one Agent for both schemes, and the
 * socket goes to the address that was checked; redirects are followed by hand
 * and re-validated; the decoded body is capped; one deadline covers it all.
 * Failures are {@link SourceError}s with user-facing messages.
 */
export async function fetchUrl(url: string, opts: FetchUrlOptions): Promise<FetchedUrl> {
  let current = checkHop(url, opts, 'the URL');
  const maxRedirects = opts.maxRedirects ?? 5;
  const guard: Guard = { opts, deadline: AbortSignal.timeout(opts.timeoutMs), sockets: new Set() };
  const timeouts = { headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs };
  const agent = new Agent({ connect: guardedConnector(guard), ...timeouts });
  try {
    for (let redirects = 0; ; redirects++) {
      const res = await agent.request({
        origin: current.origin,
        path: current.pathname + current.search,
        method: 'GET',
        headers: { 'user-agent': opts.userAgent ?? DEFAULT_USER_AGENT, accept: '*/*', 'accept-encoding': 'identity' },
        signal: guard.deadline,
      });
      const location = header(res.headers, 'location');
      if (REDIRECT_STATUSES.has(res.statusCode) && location !== undefined) {
        discard(res.body);
        if (redirects >= maxRedirects) {
          throw new SourceError('fetch_failed', `too many redirects (more than ${maxRedirects})`, false);
        }
        current = checkHop(URL.parse(location, current.href)?.href ?? location, opts, 'the redirect target');
        continue;
      }
      if (res.statusCode < 200 || res.statusCode > 299) {
        discard(res.body);
        throw statusError(res.statusCode);
      }
      const bytes = await readCapped(res.body, res.headers, opts.maxBytes, guard.deadline);
      const contentType = header(res.headers, 'content-type');
      const filename = filenameFrom(header(res.headers, 'content-disposition'), current);
      return {
        bytes,
        finalUrl: current.href,
        status: res.statusCode,
        ...(contentType !== undefined && { contentType }),
        ...(filename !== undefined && { filename }),
      };
    }
  } catch (err) {
    throw toSourceError(err, guard.deadline, current.hostname, opts.timeoutMs);
  } finally {
    // The agent closes the sockets it owns; this also catches one still connecting.
    for (const socket of guard.sockets) socket.destroy();
    await agent.destroy().catch(() => undefined);
  }
}

/** Syntax and scheme check of one hop, plus the address rule for IP literals (they never reach lookup). */
function checkHop(raw: string, opts: FetchUrlOptions, what: string): URL {
  const checked = checkSourceUrl(raw);
  if (!checked.ok) throw new SourceError('fetch_blocked', `${what} is not allowed: it ${checked.message}`, false);
  const url = new URL(checked.url);
  const host = stripBrackets(url.hostname);
  if (net.isIP(host) !== 0 && !isAllowedAddress(host, opts.allowPrivate)) throw blocked(host);
  return url;
}

function blocked(host: string): SourceError {
  const message = `the address ${host} is not allowed (private, loopback, link-local or metadata)`;
  return new SourceError('fetch_blocked', message, false);
}

function guardedConnector(guard: Guard): buildConnector.connector {
  return (target, callback) => {
    openChecked(target, guard).then(
      (socket) => callback(null, socket),
      (err: Error) => callback(err, null),
    );
  };
}

/** The only way to a socket: check the literal, or resolve once and check every address; connect to that address. */
async function openChecked(target: buildConnector.Options, { opts, deadline, sockets }: Guard): Promise<Socket> {
  const { protocol } = target;
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new SourceError('fetch_blocked', 'only http and https can be fetched', false);
  }
  const host = stripBrackets(target.hostname);
  const port = Number(target.port) || (protocol === 'https:' ? 443 : 80);
  const literal = net.isIP(host) !== 0;
  const address = literal ? host : await resolveChecked(host, opts, deadline);
  if (!isAllowedAddress(address, opts.allowPrivate)) throw blocked(host);
  const servername = literal ? undefined : host.replace(/\.$/, '');
  const socket = (opts.connect ?? defaultConnect)({ address, port, protocol, ...(servername && { servername }) });
  sockets.add(socket);
  socket.once('close', () => sockets.delete(socket));
  const event = protocol === 'https:' ? 'secureConnect' : 'connect';
  return connected(socket, event, opts.connectTimeoutMs ?? 5000, deadline, host);
}

/** Resolves once; every address must pass, and the first is the one connected to (no second resolution). */
async function resolveChecked(host: string, opts: FetchUrlOptions, deadline: AbortSignal): Promise<string> {
  const addresses = await lookupAll(host, opts.lookup ?? dnsLookup, deadline);
  const first = addresses[0];
  if (first === undefined) throw Object.assign(new Error('no address'), { code: 'ENOTFOUND' });
  if (!addresses.every((a) => isAllowedAddress(a.address, opts.allowPrivate))) throw blocked(host);
  return first.address;
}

function lookupAll(host: string, lookup: LookupFunction, deadline: AbortSignal): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    if (deadline.aborted) return reject(deadline.reason);
    const onAbort = () => reject(deadline.reason);
    deadline.addEventListener('abort', onAbort, { once: true });
    lookup(host, { all: true }, (err, address, family) => {
      deadline.removeEventListener('abort', onAbort);
      if (err) return reject(err);
      resolve(Array.isArray(address) ? address : [{ address, family: family ?? net.isIP(address) }]);
    });
  });
}

function defaultConnect({ address, port, protocol, servername }: ConnectTarget): Socket {
  if (protocol === 'http:') return net.connect({ host: address, port });
  return tls.connect({ host: address, port, ALPNProtocols: ['http/1.1'], ...(servername && { servername }) });
}

/** Waits for `event`, bounded by the connect timeout and the total deadline; destroys the socket on failure. */
function connected(socket: Socket, event: string, timeoutMs: number, deadline: AbortSignal, host: string) {
  return new Promise<Socket>((resolve, reject) => {
    const done = (err?: Error) => {
      clearTimeout(timer);
      socket.off(event, onConnect).off('error', done).off('close', onClose);
      deadline.removeEventListener('abort', onAbort);
      if (err === undefined) return resolve(socket);
      socket.destroy();
      reject(err);
    };
    const onConnect = () => done();
    const onClose = () => done(Object.assign(new Error('socket closed'), { code: 'ECONNRESET' }));
    const onAbort = () => done(deadline.reason as Error);
    const onTimeout = () => done(new SourceError('timeout', `could not connect to ${host} in time`, true));
    const timer = setTimeout(onTimeout, timeoutMs);
    socket.once(event, onConnect).once('error', done).once('close', onClose);
    if (deadline.aborted) onAbort();
    else deadline.addEventListener('abort', onAbort, { once: true });
  });
}

/** Reads the body through the decoders, counting raw and decoded bytes; never holds more than maxBytes. */
async function readCapped(body: Readable, headers: IncomingHttpHeaders, maxBytes: number, signal: AbortSignal) {
  const tooLarge = () => new SourceError('file_too_large', `the response is larger than ${maxBytes} bytes`, false);
  const declared = Number(header(headers, 'content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    discard(body);
    throw tooLarge();
  }
  const decoders = decodersFor(header(headers, 'content-encoding'));
  const chunks: Buffer[] = [];
  let [raw, size] = [0, 0];
  // An encoded stream can decode to nothing (empty gzip members), so the raw side is capped too.
  const countRaw = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      raw += chunk.length;
      cb(raw > maxBytes ? tooLarge() : null, chunk);
    },
  });
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      size += chunk.length;
      if (size > maxBytes) return cb(tooLarge());
      chunks.push(chunk);
      cb();
    },
  });
  await pipeline([body, countRaw, ...decoders, sink], { signal });
  return Buffer.concat(chunks, size);
}

/** Content-Encoding lists codings in the order applied, so they are undone in reverse; at most two. */
function decodersFor(contentEncoding: string | undefined): Transform[] {
  const codings = (contentEncoding ?? '').split(',').map((c) => c.trim().toLowerCase());
  const applied = codings.filter((c) => c !== '' && c !== 'identity');
  if (applied.length > 2) {
    throw new SourceError('unsupported_media_type', 'the server applied more than two content encodings', false);
  }
  return applied.reverse().map((coding) => {
    if (coding === 'gzip' || coding === 'x-gzip') return zlib.createGunzip();
    if (coding === 'deflate') return zlib.createInflate();
    if (coding === 'br') return zlib.createBrotliDecompress();
    const message = `the server used an unsupported content encoding (${coding.slice(0, 40)})`;
    throw new SourceError('unsupported_media_type', message, false);
  });
}

function statusError(status: number): SourceError {
  const text = `the server answered ${status} ${STATUS_CODES[status] ?? ''}`.trim();
  return new SourceError('http_status', text, status >= 500 || status === 408 || status === 429);
}

/** Maps anything thrown to a SourceError whose message names the host at most: no addresses, no stack traces. */
function toSourceError(err: unknown, deadline: AbortSignal, hostname: string, timeoutMs: number): SourceError {
  if (isSourceError(err)) return err;
  const host = stripBrackets(hostname);
  const code = errorCode(err) ?? '';
  const fail = (message: string, retryable: boolean) => new SourceError('fetch_failed', message, retryable);
  if (deadline.aborted || /^UND_ERR_(HEADERS|BODY|CONNECT)_TIMEOUT$/.test(code)) {
    return new SourceError('timeout', `the fetch did not finish within ${timeoutMs / 1000} s`, true);
  }
  if (code === 'ENOTFOUND') return fail(`the host name ${host} could not be resolved`, false);
  if (code === 'EAI_AGAIN') return fail(`the host name ${host} could not be resolved right now`, true);
  if (TLS_ERROR.test(code)) return fail(`the secure connection to ${host} failed (certificate or TLS error)`, false);
  if (/HEADERS?_OVERFLOW$/.test(code)) return fail(`the server at ${host} sent headers that are too large`, false);
  if (code.startsWith('Z_')) {
    return new SourceError('corrupt', 'the server sent a body that could not be decompressed', false);
  }
  // Refused, reset, unreachable and protocol errors share one message: no port-state oracle.
  return fail(`the connection to ${host} failed`, true);
}

/** The first error code along the `cause` chain (undici wraps socket errors in UND_ERR_SOCKET). */
function errorCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    const { code, cause } = e as { code?: unknown; cause?: unknown };
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') return code;
    e = cause;
  }
  return undefined;
}

/** Drops a body we will not read; undici reports the abort as an error nobody needs. */
function discard(body: Readable): void {
  body.on('error', () => undefined).destroy();
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** A safe display name: Content-Disposition filename* or filename, else the last path segment. */
function filenameFrom(disposition: string | undefined, url: URL): string | undefined {
  const star = disposition && /filename\*\s*=\s*[\w-]*'[^']*'([^;\s]+)/i.exec(disposition)?.[1];
  const plain = disposition && /filename\s*=\s*(?:"((?:\\.|[^"\\])*)"|([^;]+))/i.exec(disposition);
  const fromHeader = star ? decode(star) : plain ? (plain[1]?.replace(/\\(.)/g, '$1') ?? plain[2]) : undefined;
  const candidate = fromHeader ?? decode(url.pathname.split('/').pop() ?? '');
  // eslint-disable-next-line no-control-regex
  const name = (candidate.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 255);
  return name === '' || name === '.' || name === '..' ? undefined : name;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // a stray % is kept as written
  }
}
