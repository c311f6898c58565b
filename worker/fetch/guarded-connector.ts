import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import net, { type LookupFunction, type Socket } from 'node:net';
import tls from 'node:tls';
import type { buildConnector } from 'undici';
import { isAllowedAddress, stripBrackets, type PrivateAccess } from '../../shared/net/address-policy.js';
import { SourceError } from '../../shared/source-errors.js';
import { checkDestination } from '../../shared/net/url-policy.js';

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

/** What the connector of one fetch needs: the policy, the seams, the total deadline, and the sockets it opened. */
export interface ConnectGuard {
  allowPrivate: PrivateAccess;
  /** DNS lookup, called with `{ all: true }`; may answer one address or an array. Default `dns.lookup`. */
  lookup?: LookupFunction;
  /** Low-level connect. Default `net.connect` / `tls.connect`. */
  connect?: ConnectFunction;
  /** Deadline in ms for each TCP/TLS connect. */
  connectTimeoutMs: number;
  deadline: AbortSignal;
  /** Every socket opened and not yet closed, so the fetcher can destroy one still connecting. */
  sockets: Set<Socket>;
}

/** The refusal for an address that failed the policy; names the host as written, never a resolved address. */
export function blocked(host: string): SourceError {
  const message = `the address ${host} is not allowed (private, loopback, link-local or metadata)`;
  return new SourceError('fetch_blocked', message, false);
}

/**
 * An undici connector for both schemes: with one connector, a redirect from
 * http to https cannot step around the check. Every connection goes through
 * {@link openChecked}.
 */
export function guardedConnector(guard: ConnectGuard): buildConnector.connector {
  return (target, callback) => {
    openChecked(target, guard).then(
      (socket) => callback(null, socket),
      (err: Error) => callback(err, null),
    );
  };
}

/** The only way to a socket: check the literal, or resolve once and check every address; connect to that address. */
async function openChecked(target: buildConnector.Options, guard: ConnectGuard): Promise<Socket> {
  const { protocol } = target;
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new SourceError('fetch_blocked', 'only http and https can be fetched', false);
  }
  const host = stripBrackets(target.hostname);
  const port = Number(target.port) || (protocol === 'https:' ? 443 : 80);
  // Each hop was checked before its request; checking again here keeps the rule
  // true for any connection undici decides to open.
  const refusal = checkDestination(host, port, { allowPrivate: guard.allowPrivate });
  if (refusal !== undefined) throw new SourceError('fetch_blocked', `the destination is not allowed: it ${refusal}`, false);
  const literal = net.isIP(host) !== 0;
  const address = literal ? host : await resolveChecked(host, guard);
  if (!isAllowedAddress(address, guard.allowPrivate)) throw blocked(host);
  const servername = literal ? undefined : host.replace(/\.$/, '');
  const socket = (guard.connect ?? defaultConnect)({ address, port, protocol, ...(servername && { servername }) });
  guard.sockets.add(socket);
  socket.once('close', () => guard.sockets.delete(socket));
  const event = protocol === 'https:' ? 'secureConnect' : 'connect';
  return connected(socket, event, guard.connectTimeoutMs, guard.deadline, host);
}

/** Resolves once; every address must pass, and the first is the one connected to (no second resolution). */
async function resolveChecked(host: string, guard: ConnectGuard): Promise<string> {
  const addresses = await lookupAll(host, guard.lookup ?? dnsLookup, guard.deadline);
  const first = addresses[0];
  if (first === undefined) throw Object.assign(new Error('no address'), { code: 'ENOTFOUND' });
  if (!addresses.every((a) => isAllowedAddress(a.address, guard.allowPrivate))) throw blocked(host);
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
