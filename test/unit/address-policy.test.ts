import { describe, expect, it } from 'vitest';
import { isAllowedAddress, isForbiddenAddress, isMetadataAddress } from '../../shared/net/address-policy.js';

describe('isForbiddenAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'IPv6 loopback'],
    ['[::1]', 'bracketed IPv6 loopback'],
    ['0.0.0.0', 'unspecified (reaches localhost on Linux)'],
    ['::', 'IPv6 unspecified'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['169.254.169.254', 'link-local metadata'],
    ['169.254.0.1', 'link-local'],
    ['192.0.0.8', 'IETF protocol assignments 192.0.0.0/24'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.1', 'documentation'],
    ['203.0.113.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['fd00::1', 'unique local'],
    ['[fd00::1]', 'bracketed unique local'],
    ['fc00::1', 'unique local'],
    ['fe80::1', 'IPv6 link-local'],
    ['fe80::1%eth0', 'IPv6 link-local with a zone'],
    ['fec0::1', 'deprecated site-local'],
    ['ff02::1', 'IPv6 multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['[::ffff:7f00:1]', 'IPv4-mapped loopback, hex form'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['::7f00:1', 'IPv4-compatible (deprecated) loopback'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 embedding 169.254.169.254'],
    ['64:ff9b:1::a00:1', 'local-use NAT64'],
    ['2002:a00:1::1', '6to4 embedding 10.0.0.1'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['100::1', 'IPv6 discard'],
    ['fd00:ec2::254', 'AWS IPv6 metadata'],
    ['100.100.100.200', 'Alibaba metadata'],
  ])('forbids %s (%s)', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '[2001:4860:4860::8888]', '::ffff:8.8.8.8'])(
    'allows the public address %s',
    (ip) => {
      expect(isForbiddenAddress(ip)).toBe(false);
    },
  );

  it.each(['127.1', '0x7f.1', '2130706433', '017700000001', '010.0.0.1', 'localhost', 'evil.test', '', '[127.0.0.1]', '1.2.3.4.5'])(
    'fails closed on %j, which is not a canonical IP literal',
    (value) => {
      expect(isForbiddenAddress(value)).toBe(true);
    },
  );
});

describe('isMetadataAddress', () => {
  it.each(['169.254.169.254', '169.254.170.2', 'fd00:ec2::254', '[fd00:ec2:0:0::254]', '100.100.100.200', '::ffff:169.254.169.254'])(
    'recognizes %s as a cloud metadata endpoint',
    (ip) => {
      expect(isMetadataAddress(ip)).toBe(true);
    },
  );

  it.each(['127.0.0.1', '10.0.0.1', '93.184.216.34', 'evil.test'])('does not treat %s as metadata', (ip) => {
    expect(isMetadataAddress(ip)).toBe(false);
  });
});

describe('isAllowedAddress with private destinations allowed', () => {
  // 169.254.169.254 embedded in each IPv6 form a translator or relay turns back into IPv4.
  it.each([
    ['IPv4-mapped', '::ffff:169.254.169.254'],
    ['IPv4-compatible', '::a9fe:a9fe'],
    ['IPv4-translated', '::ffff:0:a9fe:a9fe'],
    ['well-known NAT64', '64:ff9b::a9fe:a9fe'],
    ['local-use NAT64, /96 prefix', '64:ff9b:1::a9fe:a9fe'],
    ['local-use NAT64, /64 prefix', '64:ff9b:1:0:a9:fea9:fe00:0'],
    ['local-use NAT64, /48 prefix', '64:ff9b:1:a9fe:a9:fe00::'],
    ['6to4', '2002:a9fe:a9fe::1'],
    ['Teredo client (inverted)', '2001:0:4136:e378:8000:63bf:5601:5601'],
    ['Teredo server', '2001:0:a9fe:a9fe::1'],
    ['NAT64 of the Alibaba metadata address', '64:ff9b::6464:64c8'],
  ])('refuses the metadata address in its %s form %s', (_form, ip) => {
    expect(isMetadataAddress(ip)).toBe(true);
    expect(isAllowedAddress(ip, true)).toBe(false);
  });

  it.each(['64:ff9b::a00:1', '2002:a00:1::1', '::ffff:0:a00:1'])('allows %s, a translated private address that is not metadata', (ip) => {
    expect(isAllowedAddress(ip, true)).toBe(true);
  });
});

describe('isAllowedAddress with private destinations refused', () => {
  it.each(['64:ff9b::808:808', '2002:808:808::1', '::808:808', '::ffff:0:808:808'])(
    'refuses the translation form %s even when it embeds a public address',
    (ip) => {
      expect(isAllowedAddress(ip, false)).toBe(false);
    },
  );

  it.each(['::ffff:8.8.8.8', '2606:4700:4700::1111', '8.8.8.8'])('allows %s', (ip) => {
    expect(isAllowedAddress(ip, false)).toBe(true);
  });
});
