import { isIP } from 'node:net';
import { isAllowedAddress, isMetadataAddress, stripBrackets, type PrivateAccess } from './address-policy.js';

/** Longest URL source accepted, in characters (before and after normalization). */
export const MAX_SOURCE_URL_LENGTH = 2048;

/**
 * Well-known ports of internal services. Nothing public is served there for a
 * knowledge base to read, and an HTTP request aimed at them is how a fetcher
 * gets turned into a client of Redis, a database or a mail relay. Refused even
 * on public addresses unless `URL_FETCH_ALLOW_PRIVATE` is on.
 */
export const INTERNAL_SERVICE_PORTS: ReadonlyMap<number, string> = new Map([
  [22, 'SSH'],
  [23, 'Telnet'],
  [25, 'SMTP'],
  [111, 'rpcbind'],
  [135, 'MS RPC'],
  [139, 'NetBIOS'],
  [445, 'SMB'],
  [465, 'SMTP'],
  [587, 'SMTP'],
  [1433, 'SQL Server'],
  [1521, 'Oracle'],
  [2049, 'NFS'],
  [2181, 'ZooKeeper'],
  [2375, 'Docker'],
  [2376, 'Docker'],
  [2379, 'etcd'],
  [2380, 'etcd'],
  [3306, 'MySQL'],
  [5432, 'PostgreSQL'],
  [5672, 'AMQP'],
  [6379, 'Redis'],
  [6443, 'Kubernetes API'],
  [9092, 'Kafka'],
  [9200, 'Elasticsearch'],
  [9300, 'Elasticsearch'],
  [10250, 'kubelet'],
  [10255, 'kubelet'],
  [11211, 'memcached'],
  [27017, 'MongoDB'],
]);

/** What a deployment allows; omitted at the API, which does not know `URL_FETCH_ALLOW_PRIVATE`. */
export interface DestinationPolicy {
  /**
   * `true` (URL_FETCH_ALLOW_PRIVATE) lifts the private-address, internal-name
   * and internal-port rules; an allow-list (URL_FETCH_ALLOW_CIDRS) lifts the
   * private-address rule for its ranges and the internal-name rule (names are
   * judged on their addresses at connect time), and keeps the port rule.
   * Never the metadata rules.
   */
  allowPrivate: PrivateAccess;
}

export type SourceUrlCheck = { ok: true; url: string } | { ok: false; message: string };

/**
 * Check of a URL source, shared by the API (before accepting it) and the
 * fetcher (on every redirect hop). Accepts only an absolute http or https URL
 * with a host, no user name or password, at most 2048 characters, and returns
 * the WHATWG-normalized `href` (so `http://0x7f.1/` comes back as
 * `http://127.0.0.1/`). Then {@link checkDestination} judges where it points.
 */
export function checkSourceUrl(raw: unknown, policy?: DestinationPolicy): SourceUrlCheck {
  if (typeof raw !== 'string') return refuse('must be a string');
  if (raw.length > MAX_SOURCE_URL_LENGTH) return refuse(`must be at most ${MAX_SOURCE_URL_LENGTH} characters`);

  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return refuse('must be an absolute http or https URL');
  }
  if (url.hostname === '') return refuse('must name a host');
  if (url.username !== '' || url.password !== '') {
    return refuse('must not contain a user name or password');
  }
  // Percent-encoding and IDNA can lengthen the URL, so the stored form is checked too.
  if (url.href.length > MAX_SOURCE_URL_LENGTH) return refuse(`must be at most ${MAX_SOURCE_URL_LENGTH} characters`);
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const problem = checkDestination(url.hostname, port, policy);
  return problem === undefined ? { ok: true, url: url.href } : refuse(problem);
}

/**
 * Why a host and port may not be contacted, or undefined when they may, as far
 * as can be told without DNS. Always refused: metadata host names
 * (`metadata`, `metadata.*`) and metadata addresses in any spelling or IPv6
 * translation form. With a policy that does not allow private destinations,
 * also: `localhost`, `*.localhost`, `*.local`, `*.internal` (unless it holds an
 * allow-list), IP literals that are private, loopback, link-local and the like
 * (unless in its allow-list), and {@link INTERNAL_SERVICE_PORTS}. Host names that pass are judged again on
 * every address DNS returns, at connect time.
 */
export function checkDestination(hostname: string, port: number, policy?: DestinationPolicy): string | undefined {
  const host = stripBrackets(hostname.toLowerCase()).replace(/\.+$/, '');
  const strict = policy !== undefined && policy.allowPrivate !== true;
  const listed = policy !== undefined && typeof policy.allowPrivate !== 'boolean';
  if (isIP(host) !== 0) {
    if (isMetadataAddress(host)) return `must not point at ${host} (a cloud metadata address)`;
    if (strict && !isAllowedAddress(host, policy.allowPrivate)) {
      return `must not point at ${host} (a private, loopback, link-local or other internal address)`;
    }
  } else {
    if (isMetadataName(host)) return `must not name a cloud metadata host (${host})`;
    if (strict && !listed && isInternalName(host)) return `must not name a local or internal host (${host})`;
  }
  const service = INTERNAL_SERVICE_PORTS.get(port);
  if (strict && service !== undefined) return `must not use port ${port} (${service}, an internal service)`;
  return undefined;
}

/** `metadata` and `metadata.*` (metadata.google.internal, metadata.tencentyun.com, ...). */
function isMetadataName(host: string): boolean {
  return host === 'metadata' || host.startsWith('metadata.');
}

/** Names that only ever mean this machine or a private network (RFC 6761, RFC 6762, ICANN's .internal). */
function isInternalName(host: string): boolean {
  return host === 'localhost' || /\.(?:localhost|local|internal)$/.test(host);
}

function refuse(message: string): SourceUrlCheck {
  return { ok: false, message };
}
