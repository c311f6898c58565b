import { describe, expect, it } from 'vitest';
import { checkDestination, checkSourceUrl, INTERNAL_SERVICE_PORTS, MAX_SOURCE_URL_LENGTH } from '../../shared/net/url-policy.js';
import { docTable } from '../helpers/doc-tables.js';

describe('checkSourceUrl', () => {
  it('accepts an https URL and returns its normalized href', () => {
    expect(checkSourceUrl('HTTPS://Example.COM:443/a/../b?q=1#frag')).toEqual({
      ok: true,
      url: 'https://example.com/b?q=1#frag',
    });
  });

  it('normalizes odd IPv4 spellings to a dotted quad (the address rule applies at fetch time)', () => {
    for (const raw of ['http://2130706433/', 'http://127.1/', 'http://0x7f.1/', 'http://017700000001/', 'http://①②⑦.0.0.1/']) {
      expect(checkSourceUrl(raw)).toEqual({ ok: true, url: 'http://127.0.0.1/' });
    }
    expect(checkSourceUrl('http://0/')).toEqual({ ok: true, url: 'http://0.0.0.0/' });
  });

  it.each([
    'file:///etc/passwd',
    'data:text/html,<h1>x',
    'ftp://example.com/file',
    'gopher://example.com/',
    'blob:https://example.com/uuid',
    'javascript:alert(1)',
    'ws://example.com/',
    '/relative/path',
    'example.com/no-scheme',
    'http://',
    '',
  ])('refuses %s as not an absolute http or https URL', (raw) => {
    const result = checkSourceUrl(raw);
    expect(result.ok).toBe(false);
  });

  it('names the scheme rule in the message', () => {
    expect(checkSourceUrl('file:///etc/passwd')).toEqual({ ok: false, message: 'must be an absolute http or https URL' });
  });

  it.each(['http://user:pw@example.com/', 'http://user@example.com/', 'https://:secret@example.com/'])(
    'refuses %s because it carries credentials',
    (raw) => {
      expect(checkSourceUrl(raw)).toEqual({ ok: false, message: 'must not contain a user name or password' });
    },
  );

  it('refuses non-strings', () => {
    for (const raw of [undefined, null, 42, { href: 'http://example.com/' }, ['http://example.com/']]) {
      expect(checkSourceUrl(raw)).toEqual({ ok: false, message: 'must be a string' });
    }
  });

  it('accepts a URL of exactly 2048 characters and refuses one of 2049', () => {
    const base = 'https://example.com/';
    const exact = base + 'a'.repeat(MAX_SOURCE_URL_LENGTH - base.length);
    expect(checkSourceUrl(exact)).toEqual({ ok: true, url: exact });
    expect(checkSourceUrl(exact + 'a')).toEqual({ ok: false, message: 'must be at most 2048 characters' });
  });

  it('refuses a URL that only grows past 2048 characters once percent-encoded', () => {
    const raw = 'https://example.com/' + 'é'.repeat(1000);
    expect(raw.length).toBeLessThan(MAX_SOURCE_URL_LENGTH);
    expect(checkSourceUrl(raw).ok).toBe(false);
  });
});

describe('checkSourceUrl at the API (no policy: URL_FETCH_ALLOW_PRIVATE is not known there)', () => {
  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[::ffff:0:a9fe:a9fe]/',
    'http://[2002:a9fe:a9fe::1]/',
    'http://[2001:0:4136:e378:8000:63bf:5601:5601]/',
    'http://2852039166/',
    'http://[fd00:ec2::254]/',
  ])('refuses %s, a metadata address in any spelling, with a field message', (raw) => {
    expect(checkSourceUrl(raw)).toMatchObject({ ok: false, message: expect.stringMatching(/^must not point at \S+ \(a cloud metadata address\)$/) });
  });

  it.each(['http://metadata/', 'http://metadata.google.internal/computeMetadata/v1/', 'http://METADATA.google.internal./'])(
    'refuses the metadata host name in %s',
    (raw) => {
      expect(checkSourceUrl(raw)).toMatchObject({ ok: false, message: expect.stringMatching(/^must not name a cloud metadata host/) });
    },
  );

  it.each(['http://localhost:8080/', 'http://127.0.0.1/', 'http://db.internal/', 'http://example.com:6379/'])(
    'leaves %s to the worker, whose answer depends on URL_FETCH_ALLOW_PRIVATE',
    (raw) => {
      expect(checkSourceUrl(raw).ok).toBe(true);
    },
  );
});

describe('checkSourceUrl with a policy (the worker, on every hop)', () => {
  const strict = { allowPrivate: false };
  const demo = { allowPrivate: true };

  it.each(['localhost', 'localhost.', 'a.localhost', 'printer.local', 'db.internal', 'host.docker.internal'])(
    'refuses the internal host name %s',
    (host) => {
      expect(checkSourceUrl(`http://${host}/`, strict)).toEqual({ ok: false, message: `must not name a local or internal host (${host.replace(/\.$/, '')})` });
      expect(checkSourceUrl(`http://${host}/`, demo).ok).toBe(true);
    },
  );

  it.each(['localhost.example.com', 'internal.example.com', 'local', 'my-metadata.example.com'])('accepts the public name %s', (host) => {
    expect(checkSourceUrl(`https://${host}/`, strict).ok).toBe(true);
  });

  it.each([...INTERNAL_SERVICE_PORTS])('refuses port %i (%s) on a public host unless private destinations are allowed', (port, service) => {
    expect(checkSourceUrl(`https://example.com:${port}/`, strict)).toEqual({ ok: false, message: `must not use port ${port} (${service}, an internal service)` });
    expect(checkSourceUrl(`https://example.com:${port}/`, demo).ok).toBe(true);
  });

  it('lists in docs/api.md every port it refuses, with its service, and no other', () => {
    const listed = docTable('docs/api.md', 'Ports refused').map(([port = '', service = '']) => [Number(port), service] as const);
    const byPort = (a: readonly [number, string], b: readonly [number, string]): number => a[0] - b[0];
    expect(listed.sort(byPort)).toEqual([...INTERNAL_SERVICE_PORTS].sort(byPort));
  });

  it('refuses at least the well-known internal ports', () => {
    const required = [22, 25, 465, 587, 2375, 2376, 2379, 2380, 3306, 5432, 6379, 9200, 9300, 10250, 10255, 11211, 27017];
    expect([...INTERNAL_SERVICE_PORTS.keys()]).toEqual(expect.arrayContaining(required));
  });

  it.each(['http://example.com/', 'https://example.com/', 'http://example.com:8080/', 'https://example.com:8443/'])('accepts the web port in %s', (raw) => {
    expect(checkSourceUrl(raw, strict).ok).toBe(true);
  });

  it('refuses a private literal only when private destinations are refused', () => {
    expect(checkSourceUrl('http://10.0.0.1/', strict)).toEqual({
      ok: false,
      message: 'must not point at 10.0.0.1 (a private, loopback, link-local or other internal address)',
    });
    expect(checkSourceUrl('http://10.0.0.1/', demo).ok).toBe(true);
    expect(checkSourceUrl('http://169.254.169.254/', demo).ok).toBe(false);
  });

  it('judges a host and port without a URL, as the connector does', () => {
    expect(checkDestination('public.test', 6379, strict)).toBe('must not use port 6379 (Redis, an internal service)');
    expect(checkDestination('[::1]', 80, strict)).toMatch(/^must not point at ::1 /);
    expect(checkDestination('public.test', 443, strict)).toBeUndefined();
  });
});
