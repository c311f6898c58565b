import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

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
 * IPv6 forms that carry an IPv4 address a packet can end up at, and where it
 * sits. A NAT64 gateway, a SIIT translator, a 6to4 relay or a Teredo relay
 * turns the IPv6 destination into that IPv4 one, so the IPv4 rule must judge
 * it: otherwise `64:ff9b::a9fe:a9fe` reaches 169.254.169.254.
 */
const EMBEDDINGS: { prefix: [ipaddr.IPv6, number]; embedded: (bytes: number[]) => number[][] }[] = [
  // IPv4-compatible (deprecated) ::a.b.c.d, except :: and ::1 themselves.
  { prefix: ipaddr.IPv6.parseCIDR('::/96'), embedded: (b) => [b.slice(12)] },
  // IPv4-translated (SIIT) ::ffff:0:a.b.c.d.
  { prefix: ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'), embedded: (b) => [b.slice(12)] },
  // Well-known NAT64 prefix 64:ff9b::/96.
  { prefix: ipaddr.IPv6.parseCIDR('64:ff9b::/96'), embedded: (b) => [b.slice(12)] },
  // Local-use NAT64 64:ff9b:1::/48: the operator picks the prefix length, so
  // every position the address format allows is judged (/48, /56, /64, /96;
  // bits 64-71 are never part of the address).
  {
    prefix: ipaddr.IPv6.parseCIDR('64:ff9b:1::/48'),
    embedded: (b) => [
      [b[6]!, b[7]!, b[9]!, b[10]!],
      [b[7]!, b[9]!, b[10]!, b[11]!],
      b.slice(9, 13),
      b.slice(12),
    ],
  },
  // 6to4 2002:AABB:CCDD::/48 carries the site's IPv4 in bits 16-47.
  { prefix: ipaddr.IPv6.parseCIDR('2002::/16'), embedded: (b) => [b.slice(2, 6)] },
  // Teredo 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC: the server address, and the
  // client address stored inverted (XOR 0xffffffff).
  { prefix: ipaddr.IPv6.parseCIDR('2001::/32'), embedded: (b) => [b.slice(4, 8), b.slice(12).map((x) => x ^ 0xff)] },
];

/**
 * Parses a canonical IP literal (brackets allowed, zone id allowed) and unmaps
 * IPv4-mapped IPv6. Returns undefined for anything `net.isIP` does not accept:
 * odd spellings such as `127.1` or `0x7f.1` are the URL parser's job, and
 * accepting them here would let this check and the socket disagree.
 */
function parseAddress(ip: string): Address | undefined {
  const bare = stripBrackets(ip);
  if (isIP(bare) === 0) return undefined;
  try {
    return ipaddr.process(bare);
  } catch {
    return undefined;
  }
}

/** The IPv4 addresses an IPv6 address stands for through a translation form (none for plain IPv6). */
function embeddedIPv4(addr: Address): ipaddr.IPv4[] {
  if (!(addr instanceof ipaddr.IPv6)) return [];
  const bytes = addr.toByteArray();
  const form = EMBEDDINGS.find(({ prefix }) => addr.match(prefix));
  // :: and ::1 are IPv6's own unspecified and loopback addresses, judged as such.
  if (form === undefined || addr.range() === 'unspecified' || addr.range() === 'loopback') return [];
  return form.embedded(bytes).map((b) => new ipaddr.IPv4(b));
}

/** The address itself and every IPv4 address it embeds: each must pass the rule. */
function judged(addr: Address): Address[] {
  return [addr, ...embeddedIPv4(addr)];
}

function isMetadata(addr: Address): boolean {
  return METADATA_ADDRESSES.has(withoutZone(addr));
}

function isForbiddenOne(addr: Address): boolean {
  if (isMetadata(addr) || addr.range() !== 'unicast') return true;
  return addr instanceof ipaddr.IPv6 && !addr.match(IPV6_GLOBAL_UNICAST);
}

/**
 * True when the fetcher must not connect to `ip`: anything whose ipaddr.js
 * `range()` is not `unicast` (loopback, private, link-local, unique-local,
 * unspecified, multicast, broadcast, carrier-grade NAT, reserved, benchmarking,
 * documentation, 6to4, Teredo, NAT64, ...), IPv6 outside 2000::/3, cloud
 * metadata addresses, any address whose embedded IPv4 (IPv4-mapped,
 * IPv4-compatible, IPv4-translated, NAT64, 6to4, Teredo) is forbidden, and any
 * string that is not a canonical IP literal (fail closed).
 */
export function isForbiddenAddress(ip: string): boolean {
  const addr = parseAddress(ip);
  return addr === undefined || judged(addr).some(isForbiddenOne);
}

/**
 * True for a cloud metadata endpoint, written directly or embedded in an IPv6
 * translation form; it stays forbidden even when `URL_FETCH_ALLOW_PRIVATE`
 * lifts the private-address rule.
 */
export function isMetadataAddress(ip: string): boolean {
  const addr = parseAddress(ip);
  return addr !== undefined && judged(addr).some(isMetadata);
}

/**
 * Ranges a deployment lets the fetcher reach although they are internal
 * (URL_FETCH_ALLOW_CIDRS, e.g. `127.0.0.0/8,::1/128` for a local demo).
 * Metadata addresses inside a listed range stay refused.
 */
export class CidrAllowList {
  private constructor(
    private readonly ranges: readonly [Address, number][],
    /** The ranges as written, normalized (`127.0.0.0/8`). */
    readonly cidrs: readonly string[],
  ) {}

  /**
   * Parses a comma-separated list of CIDR ranges; returns the reason for the
   * first entry that is not one (a bare address, a prefix length too long, a
   * host part set, as in `127.0.0.1/8`).
   */
  static parse(list: string): CidrAllowList | { error: string } {
    const entries = list.split(',').map((e) => e.trim()).filter((e) => e !== '');
    const ranges: [Address, number][] = [];
    for (const entry of entries) {
      let range: [Address, number];
      try {
        range = ipaddr.parseCIDR(entry);
      } catch {
        return { error: `"${entry}" is not a CIDR range such as 127.0.0.0/8 or ::1/128` };
      }
      const network = ipaddr.parse(networkAddress(range));
      if (network.toNormalizedString() !== range[0].toNormalizedString()) {
        return { error: `"${entry}" has bits set past its prefix; write ${networkAddress(range)}/${range[1]}` };
      }
      ranges.push(range);
    }
    return new CidrAllowList(ranges, ranges.map(([a, bits]) => `${a.toString()}/${bits}`));
  }

  get empty(): boolean {
    return this.ranges.length === 0;
  }

  /** The list as URL_FETCH_ALLOW_CIDRS would write it. */
  toString(): string {
    return this.cidrs.join(',');
  }

  /** True when `ip` and every IPv4 address it embeds fall in a listed range. */
  contains(ip: string): boolean {
    const addr = parseAddress(ip);
    if (addr === undefined) return false;
    return judged(addr).every((a) => this.ranges.some(([net, bits]) => a.kind() === net.kind() && a.match(net, bits)));
  }
}

/**
 * What a deployment lets the fetcher reach beyond public addresses: nothing
 * (`false`, the default), every private range (`true`,
 * URL_FETCH_ALLOW_PRIVATE) or the listed ranges (URL_FETCH_ALLOW_CIDRS).
 * Metadata addresses are refused under all three.
 */
export type PrivateAccess = boolean | CidrAllowList;

/** The deployment's {@link PrivateAccess}: URL_FETCH_ALLOW_PRIVATE wins over a list, an empty list is none. */
export function privateAccess(config: { URL_FETCH_ALLOW_PRIVATE: boolean; URL_FETCH_ALLOW_CIDRS?: CidrAllowList | undefined }): PrivateAccess {
  if (config.URL_FETCH_ALLOW_PRIVATE) return true;
  const list = config.URL_FETCH_ALLOW_CIDRS;
  return list === undefined || list.empty ? false : list;
}

/**
 * The rule applied before every connection: `ip` must be a canonical IP
 * literal and never a metadata address (in any form); it must also not be
 * {@link isForbiddenAddress}, unless `allowPrivate` lifts that rule for every
 * address (URL_FETCH_ALLOW_PRIVATE, for tests) or for those in its ranges
 * (URL_FETCH_ALLOW_CIDRS, for local demos).
 */
export function isAllowedAddress(ip: string, allowPrivate: PrivateAccess): boolean {
  if (isIP(stripBrackets(ip)) === 0 || isMetadataAddress(ip)) return false;
  if (allowPrivate === true) return true;
  if (allowPrivate !== false && allowPrivate.contains(ip)) return true;
  return !isForbiddenAddress(ip);
}

function networkAddress([addr, bits]: [Address, number]): string {
  return addr.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(`${addr.toString()}/${bits}`).toString() : ipaddr.IPv6.networkAddressFromCIDR(`${addr.toString()}/${bits}`).toString();
}

/** `[::1]` → `::1`: WHATWG `URL.hostname` keeps the brackets, and `net.isIP('[::1]')` is 0. */
export function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function withoutZone(addr: Address): string {
  return addr instanceof ipaddr.IPv6 ? new ipaddr.IPv6(addr.parts).toRFC5952String() : addr.toString();
}
