import net, { type LookupFunction } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CidrAllowList } from '../../shared/net/address-policy.js';
import { SourceError, type SourceErrorCode } from '../../shared/source-errors.js';
import type { Config } from '../../shared/runtime/config.js';
import { INTERNAL_SERVICE_PORTS } from '../../shared/net/url-policy.js';
import type { StoredSource } from '../../shared/store/kb-records.js';
import type { KbStore } from '../../shared/store/kb-store.js';
import type { Extraction } from '../../worker/extractors/index.js';
import { fetchUrl, type ConnectFunction } from '../../worker/fetch/fetch-url.js';
import { ingestSource } from '../../worker/jobs/ingest-source.js';
import { MB, PUBLIC, guardStubs, startCanary, tinyPng, type Canary, type GuardStubs } from '../helpers/canary-server.js';

/*
 * Every socket goes to the loopback canary (see guardStubs): names resolve
 * through a stub lookup, PUBLIC stands in for a public origin, and any other
 * connect attempt is recorded as a violation (checked after each test) and
 * throws instead of opening a socket, so a broken guard never sends a packet.
 */
const BLOCKED = /^the (URL|redirect target) is not allowed: it must not point at \S+ \(a (cloud metadata|private, loopback, link-local or other internal) address\)$/;
const BLOCKED_AFTER_DNS = /^the address \S+ is not allowed \(private, loopback, link-local or metadata\)$/;

let canary: Canary;
let closedPort: number;
let h: GuardStubs;

beforeAll(async () => {
  canary = await startCanary();
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as net.AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
});
afterAll(() => canary.close());
beforeEach(() => {
  h = guardStubs(canary, [closedPort]);
});
afterEach(() => {
  expect(h.violations).toEqual([]);
});

async function failure(promise: Promise<unknown>, code: SourceErrorCode, retryable: boolean): Promise<SourceError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SourceError);
  expect(err).toMatchObject({ code, retryable });
  expect((err as Error).message).not.toMatch(/\n\s+at /);
  return err as SourceError;
}

const withPort = (template: string) => template.replaceAll('PORT', String(canary.port));
const at = (host: string, path: string) => `http://${host}:${canary.port}${path}`;

describe('addresses', () => {
  it.each([
    'http://127.0.0.1:PORT/ok', 'http://[::1]:PORT/ok', 'http://0.0.0.0:PORT/ok',
    'http://[::ffff:127.0.0.1]:PORT/ok', 'http://2130706433:PORT/ok', 'http://127.1:PORT/ok',
    'http://0x7f.1:PORT/ok', 'http://017700000001:PORT/ok', 'http://①②⑦.0.0.1:PORT/ok', 'http://0:PORT/ok', 'http://10.0.0.1/',
    'http://100.64.0.1/', 'http://169.254.169.254/', 'http://169.254.169.254/latest/meta-data/',
    'https://169.254.169.254/latest/meta-data/', 'http://[::ffff:a9fe:a9fe]/', 'http://[64:ff9b::a9fe:a9fe]/',
    'http://[fd00::1]/', 'http://[fe80::1]/', 'http://[fd00:ec2::254]/', 'http://100.100.100.200/',
    'http://192.168.0.10:6379/',
  ])('refuses %s before any connection', async (template) => {
    const before = canary.connections();
    const err = await failure(fetchUrl(withPort(template), h.opts()), 'fetch_blocked', false);
    expect(err.message).toMatch(BLOCKED);
    expect(canary.connections()).toBe(before);
    expect(h.connects).toEqual([]);
    expect(h.lookups).toEqual([]);
  });

  it('names the refused address and nothing more', async () => {
    const err = await failure(fetchUrl('http://169.254.169.254/latest/meta-data/', h.opts()), 'fetch_blocked', false);
    expect(err.message).toBe('the URL is not allowed: it must not point at 169.254.169.254 (a cloud metadata address)');
  });

  it.each([
    ['evil.test', '169.254.169.254'],
    ['internal.test', '10.1.2.3'],
  ])('refuses %s, which resolves (injected lookup) to %s, without connecting', async (name) => {
    const before = canary.connections();
    const err = await failure(fetchUrl(at(name, '/ok'), h.opts()), 'fetch_blocked', false);
    expect(err.message).toBe(`the address ${name} is not allowed (private, loopback, link-local or metadata)`);
    expect(h.lookups).toEqual([name]);
    expect(h.connects).toEqual([]);
    expect(canary.connections()).toBe(before);
  });

  it.each(['mixed.test', 'mixed6.test'])('refuses %s when the lookup answers [public, private]', async (name) => {
    await failure(fetchUrl(`https://${name}/`, h.opts()), 'fetch_blocked', false);
    expect(h.connects).toEqual([]);
  });

  it('accepts a lookup that answers a single address instead of an array', async () => {
    const single: LookupFunction = (_host, _options, callback) => callback(null, PUBLIC, 4);
    const res = await fetchUrl(at('single.test', '/ok'), h.opts({ lookup: single }));
    expect(res.status).toBe(200);
    expect(h.connects.map((c) => c.address)).toEqual([PUBLIC]);
  });

  it('connects to the address it validated: a rebinding lookup (injected: public, then 127.0.0.1; real DNS rebinding is simulated, not reproduced) never gets the private one', async () => {
    let answers = 0;
    h.names['rebind.test'] = () => (answers++ === 0 ? [PUBLIC] : ['127.0.0.1']);
    // Connection: close on the redirect forces a second connection, hence a second lookup.
    const err = await failure(fetchUrl(at('rebind.test', '/close-redirect'), h.opts()), 'fetch_blocked', false);
    expect(err.message).toMatch(BLOCKED_AFTER_DNS);
    expect(h.lookups).toEqual(['rebind.test', 'rebind.test']);
    expect(h.connects).toEqual([{ address: PUBLIC, port: canary.port, protocol: 'http:', servername: 'rebind.test' }]);
  });

  it('fetches the loopback canary when allowPrivate is set (local demos)', async () => {
    const res = await fetchUrl(canary.url('/ok'), h.opts({ allowPrivate: true }));
    expect(res.status).toBe(200);
    expect(h.connects).toEqual([{ address: '127.0.0.1', port: canary.port, protocol: 'http:' }]);
  });

  describe('with an allow-list (URL_FETCH_ALLOW_CIDRS=127.0.0.0/8,::1/128)', () => {
    const demo = CidrAllowList.parse('127.0.0.0/8,::1/128') as CidrAllowList;

    it('fetches the loopback canary by address and by a name that resolves into the list', async () => {
      expect((await fetchUrl(canary.url('/ok'), h.opts({ allowPrivate: demo }))).status).toBe(200);
      expect((await fetchUrl(at('localhost.', '/ok'), h.opts({ allowPrivate: demo }))).status).toBe(200);
      expect(h.connects.map((c) => c.address)).toEqual(['127.0.0.1', '127.0.0.1']);
    });

    it.each([
      ['http://10.0.0.1/', 'fetch_blocked'],
      ['http://internal.test/', 'fetch_blocked'],
      ['http://mixed.test/', 'fetch_blocked'],
      ['http://evil.test/', 'fetch_blocked'],
      ['http://169.254.169.254/', 'fetch_blocked'],
    ] as const)('refuses %s, outside the list or metadata, without connecting', async (url, code) => {
      await failure(fetchUrl(url, h.opts({ allowPrivate: demo })), code, false);
      expect(h.connects).toEqual([]);
    });
  });

  it.each(['http://169.254.169.254/', 'http://[fd00:ec2::254]/', 'http://evil.test/'])(
    'still refuses the metadata address %s when allowPrivate is set',
    async (url) => {
      await failure(fetchUrl(url, h.opts({ allowPrivate: true })), 'fetch_blocked', false);
      expect(h.connects).toEqual([]);
    },
  );
});

/*
 * 169.254.169.254 written inside an IPv6 translation form. A NAT64 gateway,
 * SIIT translator, 6to4 or Teredo relay turns each back into the IPv4
 * address, so with private destinations allowed they must stay refused like
 * the metadata address itself.
 */
const METADATA_FORMS: [string, string][] = [
  ['IPv4-mapped', '::ffff:a9fe:a9fe'],
  ['IPv4-compatible', '::a9fe:a9fe'],
  ['IPv4-translated', '::ffff:0:a9fe:a9fe'],
  ['well-known NAT64 (64:ff9b::/96)', '64:ff9b::a9fe:a9fe'],
  ['local-use NAT64 with a /96 prefix', '64:ff9b:1::a9fe:a9fe'],
  ['local-use NAT64 with a /48 prefix', '64:ff9b:1:a9fe:a9:fe00::'],
  ['6to4 (2002::/16)', '2002:a9fe:a9fe::1'],
  ['Teredo client (2001::/32, inverted)', '2001:0:4136:e378:8000:63bf:5601:5601'],
];

describe('metadata addresses in IPv6 translation forms, with private destinations allowed', () => {
  it.each(METADATA_FORMS)('refuses a name that resolves to the %s form %s without connecting', async (_form, address) => {
    h.names['translated.test'] = [address];
    const err = await failure(fetchUrl('http://translated.test/', h.opts({ allowPrivate: true })), 'fetch_blocked', false);
    expect(err.message).toMatch(BLOCKED_AFTER_DNS);
    expect(h.lookups).toEqual(['translated.test']);
    expect(h.connects).toEqual([]);
  });

  it.each(METADATA_FORMS)('refuses the %s literal [%s] before any lookup or connection', async (_form, address) => {
    const err = await failure(fetchUrl(`http://[${address}]/`, h.opts({ allowPrivate: true })), 'fetch_blocked', false);
    expect(err.message).toMatch(/^the URL is not allowed: it must not point at \S+ \(a cloud metadata address\)$/);
    expect(h.lookups).toEqual([]);
    expect(h.connects).toEqual([]);
  });
});

describe('internal service ports', () => {
  it.each([...INTERNAL_SERVICE_PORTS])('refuses port %i (%s) on a public name without a lookup or a connection', async (port, service) => {
    const err = await failure(fetchUrl(`http://public.test:${port}/ok`, h.opts()), 'fetch_blocked', false);
    expect(err.message).toBe(`the URL is not allowed: it must not use port ${port} (${service}, an internal service)`);
    expect(h.lookups).toEqual([]);
    expect(h.connects).toEqual([]);
  });

  it('refuses a redirect to an internal service port without connecting to it', async () => {
    const target = encodeURIComponent('http://public.test:6379/ok');
    const err = await failure(fetchUrl(at('origin.test', `/redirect?to=${target}`), h.opts()), 'fetch_blocked', false);
    expect(err.message).toBe('the redirect target is not allowed: it must not use port 6379 (Redis, an internal service)');
    expect(h.connects.map((c) => c.port)).toEqual([canary.port]);
  });

  it('connects to a listed port when allowPrivate is set (local demos)', async () => {
    const res = await fetchUrl('http://public.test:6379/ok', h.opts({ allowPrivate: true }));
    expect(res.status).toBe(200);
    expect(h.connects).toEqual([{ address: PUBLIC, port: 6379, protocol: 'http:', servername: 'public.test' }]);
  });
});

describe('internal host names', () => {
  it.each(['localhost', 'localhost.', 'LOCALHOST', 'app.localhost', 'printer.local', 'db.internal', 'host.docker.internal'])(
    'refuses %s before DNS (the lookup is never called)',
    async (name) => {
      const err = await failure(fetchUrl(at(name, '/ok'), h.opts()), 'fetch_blocked', false);
      expect(err.message).toMatch(/^the URL is not allowed: it must not name a local or internal host \(\S+\)$/);
      expect(h.lookups).toEqual([]);
      expect(h.connects).toEqual([]);
    },
  );

  it.each(['metadata', 'metadata.google.internal', 'metadata.google.internal.', 'Metadata.Tencentyun.com'])(
    'refuses the metadata name %s before DNS, even when allowPrivate is set',
    async (name) => {
      h.names[name.toLowerCase()] = ['10.0.0.9'];
      const err = await failure(fetchUrl(`http://${name}/`, h.opts({ allowPrivate: true })), 'fetch_blocked', false);
      expect(err.message).toMatch(/^the URL is not allowed: it must not name a cloud metadata host \(\S+\)$/);
      expect(h.lookups).toEqual([]);
      expect(h.connects).toEqual([]);
    },
  );

  it('refuses a redirect to localhost without a lookup', async () => {
    const target = encodeURIComponent(withPort('http://localhost:PORT/ok'));
    await failure(fetchUrl(at('origin.test', `/redirect?to=${target}`), h.opts()), 'fetch_blocked', false);
    expect(h.lookups).toEqual(['origin.test']);
    expect(h.connects.map((c) => c.address)).toEqual([PUBLIC]);
  });

  it('looks localhost up and fetches it when allowPrivate is set (local demos)', async () => {
    const res = await fetchUrl(at('localhost', '/ok'), h.opts({ allowPrivate: true }));
    expect(res.status).toBe(200);
    expect(h.lookups).toEqual(['localhost']);
  });
});

describe('schemes and URL hygiene', () => {
  it.each([
    'file:///etc/passwd', 'data:text/html,<h1>x', 'ftp://public.test/file', 'gopher://127.0.0.1:PORT/_INFO',
    'blob:https://public.test/uuid', 'javascript:alert(1)', 'http://user:pw@public.test:PORT/ok', 'not a url',
  ])('refuses %s without a lookup or a connection', async (template) => {
    const err = await failure(fetchUrl(withPort(template), h.opts({ allowPrivate: true })), 'fetch_blocked', false);
    expect(err.message).toMatch(/^the URL is not allowed: it must/);
    expect(h.lookups).toEqual([]);
    expect(h.connects).toEqual([]);
  });
});

describe('responses', () => {
  it('returns the body, content type, status, final URL and file name of a public page', async () => {
    const res = await fetchUrl(at('public.test', '/docs/guide.html'), h.opts());
    expect(res).toMatchObject({
      status: 200,
      contentType: 'text/html; charset=utf-8',
      finalUrl: at('public.test', '/docs/guide.html'),
      filename: 'guide.html',
    });
    expect(res.bytes.toString()).toContain('<p>hello</p>');
    expect(h.connects).toEqual([{ address: PUBLIC, port: canary.port, protocol: 'http:', servername: 'public.test' }]);
  });

  it('asks for identity encoding and sends no cookies or credentials', async () => {
    await fetchUrl(at('public.test', '/r/1'), h.opts());
    const sent = canary.requests.slice(-3);
    expect(sent.map((r) => r.path)).toEqual(['/r/1', '/r/0', '/ok']);
    for (const { headers } of sent) {
      expect(headers['accept-encoding']).toBe('identity');
      expect(headers['user-agent']).toMatch(/^kb-ingest\//);
      expect(headers).not.toHaveProperty('cookie');
      expect(headers).not.toHaveProperty('authorization');
      expect(headers).not.toHaveProperty('proxy-authorization');
    }
  });

  it('returns a PNG body as bytes (type detection happens elsewhere)', async () => {
    const res = await fetchUrl(at('public.test', '/png'), h.opts());
    expect(res.contentType).toBe('image/png');
    expect(res.bytes.equals(tinyPng())).toBe(true);
  });

  it.each([
    ['attachment; filename="../../etc/report.pdf"', 'report.pdf'],
    ["attachment; filename*=UTF-8''na%C3%AFve%20notes.pdf; filename=\"fallback.pdf\"", 'naïve notes.pdf'],
    ['inline; filename=plain.pdf', 'plain.pdf'],
    ['attachment', 'disposition'],
  ])('takes the file name from Content-Disposition %j', async (value, expected) => {
    const res = await fetchUrl(at('public.test', `/disposition?v=${encodeURIComponent(value)}`), h.opts());
    expect(res.filename).toBe(expected);
  });

  it('removes a right-to-left override from a Content-Disposition file name, so the title shows no reordered text', async () => {
    const value = "attachment; filename*=UTF-8''invoice%E2%80%AEfdp.exe";
    const url = at('public.test', `/disposition?v=${encodeURIComponent(value)}`);
    const noTitle: Extraction = { markdown: 'x', text: 'x', mimeType: 'application/pdf', truncated: false } as Extraction;
    const outcome = await ingestSource(
      {
        config: { MAX_FILE_BYTES: MB, MAX_TEXT_CHARS: 1000 } as Config,
        kbs: {} as KbStore,
        fetch: (u) => fetchUrl(u, h.opts()),
        extract: () => Promise.resolve(noTitle),
      },
      'kb1',
      { type: 'url', content: url, documentId: 'doc1', run: 1 } as StoredSource,
      { maxTokens: 512, overlapTokens: 0 },
    );
    expect(outcome.title).toBe('invoicefdp.exe');
    expect(outcome.title).not.toContain('\u202e');
  });

  it('fails 404 as http_status, not retryable', async () => {
    const err = await failure(fetchUrl(at('public.test', '/missing'), h.opts()), 'http_status', false);
    expect(err.message).toBe('the server answered 404 Not Found');
  });

  it('fails 503 as retryable, and the next attempt gets the 200', async () => {
    const url = at('public.test', '/flaky');
    const err = await failure(fetchUrl(url, h.opts()), 'http_status', true);
    expect(err.message).toBe('the server answered 503 Service Unavailable');
    expect((await fetchUrl(url, h.opts())).bytes.toString()).toBe('recovered');
  });

  it.each([
    [408, true],
    [429, true],
    [500, true],
    [403, false],
    [410, false],
  ])('classifies status %i as retryable=%s', async (status, retryable) => {
    await failure(fetchUrl(at('public.test', `/status/${status}`), h.opts()), 'http_status', retryable);
  });
});

describe('redirects', () => {
  it('follows 5 redirects and reports the final URL', async () => {
    const res = await fetchUrl(at('origin.test', '/r/4'), h.opts());
    expect(res.finalUrl).toBe(at('origin.test', '/ok'));
    expect(res.status).toBe(200);
  });

  it('refuses the 6th redirect', async () => {
    const err = await failure(fetchUrl(at('origin.test', '/r/5'), h.opts()), 'fetch_failed', false);
    expect(err.message).toBe('too many redirects (more than 5)');
  });

  it('stops a redirect loop after maxRedirects hops', async () => {
    const before = canary.requests.length;
    const err = await failure(fetchUrl(at('origin.test', '/loop'), h.opts({ maxRedirects: 3 })), 'fetch_failed', false);
    expect(err.message).toBe('too many redirects (more than 3)');
    expect(canary.requests.length - before).toBe(4);
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/', 'https://10.0.0.1/',
    'https://169.254.169.254/', 'http://127.0.0.1:PORT/ok', 'http://[::1]:PORT/ok',
    'http://2130706433:PORT/ok', 'http://evil.test/latest/meta-data/', 'https://internal.test/',
    'file:///etc/passwd', 'http://user:pw@public.test:PORT/ok',
  ])('re-validates a redirect to %s and refuses it without connecting', async (template) => {
    const target = encodeURIComponent(withPort(template));
    const before = canary.requests.length;
    const err = await failure(fetchUrl(at('origin.test', `/redirect?to=${target}`), h.opts()), 'fetch_blocked', false);
    expect(err.message).toMatch(/^(the address \S+ is not allowed|the redirect target is not allowed: it must)/);
    expect(canary.requests.length - before).toBe(1);
    expect(h.connects.map((c) => c.address)).toEqual([PUBLIC]);
  });

  it('resolves a relative Location against the current URL', async () => {
    const res = await fetchUrl(at('origin.test', '/redirect?to=docs/guide.html'), h.opts());
    expect(res.finalUrl).toBe(at('origin.test', '/docs/guide.html'));
  });
});

describe('size limits', () => {
  it('accepts a streamed body of exactly maxBytes and refuses one byte more', async () => {
    const opts = h.opts({ maxBytes: 100_000 });
    expect((await fetchUrl(at('public.test', '/bytes/100000'), opts)).bytes.length).toBe(100_000);
    const err = await failure(fetchUrl(at('public.test', '/bytes/100001'), opts), 'file_too_large', false);
    expect(err.message).toBe('the response is larger than 100000 bytes');
  });

  it('refuses a Content-Length over the limit before reading the body', async () => {
    await failure(fetchUrl(at('public.test', '/bytes/100001?cl'), h.opts({ maxBytes: 100_000 })), 'file_too_large', false);
    // /lie-big declares 1e9 bytes, sends 13 and holds the socket: only the header check can end this before the deadline.
    const started = performance.now();
    await failure(fetchUrl(at('public.test', '/lie-big'), h.opts({ timeoutMs: 2_000 })), 'file_too_large', false);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('aborts a 40 MB body without Content-Length after maxBytes + 1, reading only a bounded amount', async () => {
    const started = performance.now();
    await failure(fetchUrl(at('public.test', '/big'), h.opts({ maxBytes: MB })), 'file_too_large', false);
    expect(performance.now() - started).toBeLessThan(5_000);
    await canary.allClosed();
    // Loopback socket buffers let the server get a few MB ahead; never the whole 40 MB.
    expect(canary.bytesSent('/big')).toBeLessThan(16 * MB);
  });

  it('reads no more than a Content-Length that understates the body', async () => {
    const res = await fetchUrl(at('public.test', '/lie-small'), h.opts());
    expect(res.bytes.length).toBe(100);
  });

  it('fails a body cut short of its Content-Length as a retryable fetch failure', async () => {
    await failure(fetchUrl(at('public.test', '/short'), h.opts()), 'fetch_failed', true);
  });
});

describe('content encoding', () => {
  it.each(['/gzip', '/br', '/deflate'])('decodes %s when the server ignores Accept-Encoding: identity', async (path) => {
    const res = await fetchUrl(at('public.test', path), h.opts());
    expect(res.bytes.toString()).toContain('<p>hello</p>');
  });

  it('applies the cap to the decoded stream of a gzip bomb (10 MB inflating to 10 GB)', async () => {
    const started = performance.now();
    await failure(fetchUrl(at('public.test', '/gzip-bomb'), h.opts({ maxBytes: MB })), 'file_too_large', false);
    expect(performance.now() - started).toBeLessThan(5_000);
    await canary.allClosed();
    expect(canary.bytesSent('/gzip-bomb')).toBeLessThan(8 * MB);
  });

  it('refuses a chain of more than two content encodings', async () => {
    const err = await failure(fetchUrl(at('public.test', '/gzip3'), h.opts()), 'unsupported_media_type', false);
    expect(err.message).toBe('the server applied more than two content encodings');
  });
});

describe('deadlines and connection errors', () => {
  it('ends a slow trickle at the total deadline and closes the socket', async () => {
    const started = performance.now();
    const err = await failure(fetchUrl(at('public.test', '/trickle'), h.opts({ timeoutMs: 800 })), 'timeout', true);
    const elapsed = performance.now() - started;
    expect(err.message).toBe('the fetch did not finish within 0.8 s');
    expect(elapsed).toBeGreaterThanOrEqual(750);
    expect(elapsed).toBeLessThan(2_500);
    await canary.allClosed();
  });

  it('ends a request the server never answers at the total deadline', async () => {
    await failure(fetchUrl(at('public.test', '/hang'), h.opts({ timeoutMs: 500 })), 'timeout', true);
    await canary.allClosed();
  });

  it('gives up on a connect that never completes after connectTimeoutMs', async () => {
    const pending = new Set<net.Socket>();
    const neverConnects: ConnectFunction = () => {
      const socket = new net.Socket();
      pending.add(socket);
      return socket;
    };
    const started = performance.now();
    const err = await failure(
      fetchUrl('http://public.test/', h.opts({ connect: neverConnects, connectTimeoutMs: 200 })),
      'timeout',
      true,
    );
    expect(err.message).toBe('could not connect to public.test in time');
    expect(performance.now() - started).toBeLessThan(2_000);
    expect([...pending].every((s) => s.destroyed)).toBe(true);
  });

  it('ends a lookup that never answers at the total deadline', async () => {
    const silent: LookupFunction = () => undefined;
    const started = performance.now();
    await failure(fetchUrl('http://slow-dns.test/', h.opts({ lookup: silent, timeoutMs: 300 })), 'timeout', true);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(h.connects).toEqual([]);
  });

  it('fails a refused connection as retryable without details', async () => {
    const err = await failure(fetchUrl(`http://127.0.0.1:${closedPort}/`, h.opts({ allowPrivate: true })), 'fetch_failed', true);
    expect(err.message).toBe('the connection to 127.0.0.1 failed');
  });

  it('fails an unknown host name as not retryable', async () => {
    const err = await failure(fetchUrl('http://nxdomain.test/', h.opts()), 'fetch_failed', false);
    expect(err.message).toBe('the host name nxdomain.test could not be resolved');
  });

  it('fails a TLS handshake error as not retryable, through the same guarded connector', async () => {
    const err = await failure(fetchUrl(`https://public.test:${canary.port}/ok`, h.opts()), 'fetch_failed', false);
    expect(err.message).toMatch(/^the secure connection to public.test failed/);
    expect(h.connects).toEqual([{ address: PUBLIC, port: canary.port, protocol: 'https:', servername: 'public.test' }]);
  });
});
