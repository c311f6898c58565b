import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Cloud instance-metadata endpoints (AWS/GCP/Azure/OpenStack, AWS ECS task
 * metadata, AWS IPv6 IMDS, Alibaba, Oracle). They fall inside forbidden ranges
 * anyway; listing them keeps them forbidden even when private addresses are
 * allowed for a local demo.
 */
const METADATA_ADDRESSES = new Set([
  '169.254.169.254',
  '169.254.170.2',
  'fd00:ec2::254',
  '100.100.100.200',
  '192.0.0.192',
]);

// Global unicast IPv6 is 2000::/3; everything else (IPv4-compatible ::/96,
// unallocated space, site-local) is refused even when ipaddr.js calls it unicast.
const IPV6_GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Parses a canonical IP literal (brackets allowed, zone id allowed) and unmaps
 * IPv4-mapped IPv6. Returns undefined for anything `net.isIP` does not accept:
 * odd spellings such as `127.1` or `0x7f.1` are the URL parser's job, and
 * accepting them here would let this check and the socket disagree.
 */
function parseAddress(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = stripBrackets(ip);
  if (isIP(bare) === 0) return undefined;
  try {
    return ipaddr.process(bare);
  } catch {
    return undefined;
  }
}

/**
 * True when the fetcher must not connect to `ip`: anything whose ipaddr.js
 * `range()` is not `unicast` (loopback, private, link-local, unique-local,
 * unspecified, multicast, broadcast, carrier-grade NAT, reserved, benchmarking,
 * documentation, 6to4, Teredo, NAT64, ...), IPv6 outside 2000::/3, cloud
 * metadata addresses, and any string that is not a canonical IP literal (fail
 * closed). IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is judged as the IPv4 address.
 */
export function isForbiddenAddress(ip: string): boolean {
  const addr = parseAddress(ip);
  if (addr === undefined) return true;
  if (METADATA_ADDRESSES.has(withoutZone(addr))) return true;
  if (addr.range() !== 'unicast') return true;
  return addr instanceof ipaddr.IPv6 && !addr.match(IPV6_GLOBAL_UNICAST);
}

/**
 * True for a cloud metadata endpoint (after unmapping), which stays forbidden
 * even when `URL_FETCH_ALLOW_PRIVATE` lifts the private-address rule.
 */
export function isMetadataAddress(ip: string): boolean {
  const addr = parseAddress(ip);
  return addr !== undefined && METADATA_ADDRESSES.has(withoutZone(addr));
}

/**
 * The rule the fetcher applies before every connection: `ip` must be a
 * canonical IP literal and never a metadata address; unless `allowPrivate`
 * (URL_FETCH_ALLOW_PRIVATE, for tests and local demos) it must also not be
 * {@link isForbiddenAddress}.
 */
export function isAllowedAddress(ip: string, allowPrivate: boolean): boolean {
  if (isIP(stripBrackets(ip)) === 0 || isMetadataAddress(ip)) return false;
  return allowPrivate || !isForbiddenAddress(ip);
}

/** `[::1]` → `::1`: WHATWG `URL.hostname` keeps the brackets, and `net.isIP('[::1]')` is 0. */
export function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function withoutZone(addr: ipaddr.IPv4 | ipaddr.IPv6): string {
  return addr instanceof ipaddr.IPv6 ? new ipaddr.IPv6(addr.parts).toRFC5952String() : addr.toString();
}
