import { describe, expect, it } from 'vitest';
import { CidrAllowList, isAllowedAddress, privateAccess } from '../../shared/net/address-policy.js';
import { loadConfig } from '../../shared/runtime/config.js';
import { checkDestination } from '../../shared/net/url-policy.js';

function list(cidrs: string): CidrAllowList {
  const parsed = CidrAllowList.parse(cidrs);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
}

const demo = list('127.0.0.0/8,::1/128');

describe('URL_FETCH_ALLOW_CIDRS', () => {
  it('is empty by default and parses a comma-separated list of ranges, spaces allowed', () => {
    const config = loadConfig({});
    expect(config.URL_FETCH_ALLOW_CIDRS).toBeUndefined();
    expect(privateAccess(config)).toBe(false);
    expect(loadConfig({ URL_FETCH_ALLOW_CIDRS: ' 127.0.0.0/8 , ::1/128 ' }).URL_FETCH_ALLOW_CIDRS?.cidrs).toEqual(['127.0.0.0/8', '::1/128']);
  });

  it.each([
    ['127.0.0.1', /"127.0.0.1" is not a CIDR range/],
    ['127.0.0.0/33', /"127.0.0.0\/33" is not a CIDR range/],
    ['127.0.0.1/8', /bits set past its prefix; write 127.0.0.0\/8/],
    ['localhost/8', /"localhost\/8" is not a CIDR range/],
  ])('stops start-up on %s, naming the entry', (value, message) => {
    expect(() => loadConfig({ URL_FETCH_ALLOW_CIDRS: value })).toThrow(message);
  });

  it('gives way to URL_FETCH_ALLOW_PRIVATE, which opens every private range', () => {
    expect(privateAccess(loadConfig({ URL_FETCH_ALLOW_PRIVATE: 'true', URL_FETCH_ALLOW_CIDRS: '127.0.0.0/8' }))).toBe(true);
    expect(privateAccess(loadConfig({ URL_FETCH_ALLOW_CIDRS: '127.0.0.0/8' }))).toBeInstanceOf(CidrAllowList);
  });
});

describe('isAllowedAddress with an allow-list', () => {
  it.each(['127.0.0.1', '127.9.9.9', '::1', '[::1]', '::ffff:127.0.0.1'])('allows %s, inside a listed range', (ip) => {
    expect(isAllowedAddress(ip, demo)).toBe(true);
  });

  it.each(['10.0.0.1', '192.168.1.1', '172.16.0.1', 'fd00::1', 'fe80::1', '100.64.0.1', '0.0.0.0', '::'])(
    'refuses %s, private but outside every listed range',
    (ip) => {
      expect(isAllowedAddress(ip, demo)).toBe(false);
    },
  );

  it('refuses a translated form of a listed address (NAT64, 6to4), which the list does not name', () => {
    expect(isAllowedAddress('64:ff9b::7f00:1', demo)).toBe(false);
    expect(isAllowedAddress('2002:7f00:1::1', demo)).toBe(false);
  });

  it.each(['169.254.169.254', '169.254.170.2', 'fd00:ec2::254', '64:ff9b::a9fe:a9fe'])(
    'refuses the metadata address %s even inside a listed range',
    (ip) => {
      expect(isAllowedAddress(ip, list('169.254.0.0/16,fd00::/8,64:ff9b::/96'))).toBe(false);
    },
  );

  it('still allows public addresses', () => {
    expect(isAllowedAddress('8.8.8.8', demo)).toBe(true);
    expect(isAllowedAddress('2606:4700:4700::1111', demo)).toBe(true);
  });
});

describe('checkDestination with an allow-list', () => {
  it('lets a listed literal and a local name through before DNS (the name is judged on its addresses at connect time)', () => {
    expect(checkDestination('127.0.0.1', 8080, { allowPrivate: demo })).toBeUndefined();
    expect(checkDestination('[::1]', 8080, { allowPrivate: demo })).toBeUndefined();
    expect(checkDestination('localhost', 8080, { allowPrivate: demo })).toBeUndefined();
  });

  it('refuses an unlisted private literal, a metadata name and an internal service port', () => {
    expect(checkDestination('10.0.0.1', 80, { allowPrivate: demo })).toMatch(/must not point at 10.0.0.1/);
    expect(checkDestination('metadata.google.internal', 80, { allowPrivate: demo })).toMatch(/metadata host/);
    expect(checkDestination('127.0.0.1', 6379, { allowPrivate: demo })).toMatch(/must not use port 6379 \(Redis/);
  });
});
