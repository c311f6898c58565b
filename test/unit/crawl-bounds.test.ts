import type { LookupFunction } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/runtime/config.js';
import { isSourceError, SourceError } from '../../shared/source-errors.js';
import type { StoredSite } from '../../shared/store/site-records.js';
import type { ConnectTarget, FetchedUrl } from '../../worker/fetch/fetch-url.js';
import { MAX_SITEMAPS, type DiscoveryFetch } from '../../worker/sites/discover.js';
import { discoverAll } from '../helpers/discover-all.js';
import { MAX_LINKS_PER_PAGE, pageLinks } from '../../worker/sites/links.js';
import { scanMarkup } from '../../worker/sites/markup-scan.js';
import { siteFetcher } from '../../worker/sites/site-fetch.js';
import { parseSitemap, SITEMAP_MAX_BYTES, SITEMAP_MAX_ENTRIES, SitemapError } from '../../worker/sites/sitemap.js';
import { failureWithLoopProbe, withLoopProbe } from '../helpers/loop-block.js';

// Generous for a loaded two-core machine; the shapes below took 25 to 150 s
// (and held the event loop all that time) with the parsers these replace.
const MAX_BLOCK_MS = 200;
const MAX_TIME_MS = 10_000;

describe('hostile sitemaps', () => {
  it('refuses 180,000 unclosed <loc> tags (1.4 KB gzipped) at once, as too deep', async () => {
    const gz = gzipSync(`<?xml version="1.0"?><urlset>${'<loc>'.repeat(180_000)}`);
    expect(gz.length).toBeLessThan(4096);
    const r = await failureWithLoopProbe(() => parseSitemap(gz));
    expect(r.error).toBeInstanceOf(SitemapError);
    expect(r.error).toMatchObject({ problem: 'too_deep' });
    expect(r.elapsedMs).toBeLessThan(MAX_TIME_MS);
    expect(r.worstBlockMs).toBeLessThan(MAX_BLOCK_MS);
  });

  it('reads 180,000 <url>s whose <loc> is never closed in one linear pass, finding no entry', async () => {
    const gz = gzipSync(`<urlset>${'<url><loc>https://a.example/p</url>'.repeat(180_000)}</urlset>`);
    const r = await withLoopProbe(() => parseSitemap(gz));
    expect(r.value).toEqual({ kind: 'urlset', locs: [], lastmods: [], truncated: false });
    expect(r.elapsedMs).toBeLessThan(MAX_TIME_MS);
    expect(r.worstBlockMs).toBeLessThan(MAX_BLOCK_MS);
  });

  it('stops at the entry cap of a huge sitemap without holding the loop', async () => {
    const xml = `<urlset>${Array.from({ length: SITEMAP_MAX_ENTRIES + 10 }, (_, i) => `<url><loc>https://a.example/p${i}</loc></url>`).join('')}</urlset>`;
    const r = await withLoopProbe(() => parseSitemap(gzipSync(xml)));
    expect(r.value.locs).toHaveLength(SITEMAP_MAX_ENTRIES);
    expect(r.value.truncated).toBe(true);
    expect(r.worstBlockMs).toBeLessThan(MAX_BLOCK_MS);
  });

  it('stops a gzip bomb at the inflate cap with a SitemapError, off the loop', async () => {
    const bomb = gzipSync(Buffer.alloc(SITEMAP_MAX_BYTES + 1024, 0x20));
    const r = await failureWithLoopProbe(() => parseSitemap(bomb));
    expect(r.error).toBeInstanceOf(SitemapError);
    expect(r.error).toMatchObject({ problem: 'too_large', message: expect.stringMatching(/inflates past/) });
    expect(r.elapsedMs).toBeLessThan(MAX_TIME_MS);
    expect(r.worstBlockMs).toBeLessThan(MAX_BLOCK_MS);
  });

  it('refuses a DTD that declares entities, wherever the declaration sits', async () => {
    for (const dtd of ['<!DOCTYPE u [<!ENTITY e "x">]>', '<!DOCTYPE u [<!ELEMENT a ANY><!ENTITY  e SYSTEM "file:///etc/passwd">]>']) {
      const err = await parseSitemap(Buffer.from(`<?xml version="1.0"?>${dtd}<urlset><url><loc>https://a.example/&e;</loc></url></urlset>`)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SitemapError);
      expect(err).toMatchObject({ problem: 'entities' });
    }
  });

  it('keeps what the old scan read: prefixes, bare ampersands, an index, and not an extension\'s <image:loc>', async () => {
    const xml = '<sm:sitemapindex xmlns:sm="s"><sm:sitemap><sm:LOC>https://a.example/s?a=1&b=2</sm:LOC><image:image><image:loc>https://a.example/i.png</image:loc></image:image></sm:sitemap></sm:sitemapindex>';
    await expect(parseSitemap(Buffer.from(xml))).resolves.toEqual({ kind: 'index', locs: ['https://a.example/s?a=1&b=2'], lastmods: [0], truncated: false });
  });
});

describe('the scan budget', () => {
  it('ends a scan that spends its time on the loop as over_time, long before the input ends', async () => {
    let tags = 0;
    const r = await withLoopProbe(() => scanMarkup(['<p>'.repeat(3_000_000)], { xmlMode: false, budgetMs: 20 }, () => ({ onopentagname: () => void (tags += 1) })));
    expect(r.value).toBe('over_time');
    expect(tags).toBeGreaterThan(0);
    expect(tags).toBeLessThan(3_000_000);
    expect(r.worstBlockMs).toBeLessThan(MAX_BLOCK_MS);
  });
});

describe('hostile pages', () => {
  it('reads the links of 400 KB of nested <div>s without holding the loop', async () => {
    const depth = 400 * 1024 / 5;
    const html = `<html><body>${'<div>'.repeat(depth)}<a href="/deep">deep</a>${'</span>'.repeat(depth)}</body></html>`;
    const r = await withLoopProbe(() => pageLinks(html));
    expect(r.value.links).toEqual(['/deep']);
    expect(r.elapsedMs).toBeLessThan(MAX_TIME_MS);
    expect(r.worstBlockMs).toBeLessThan(MAX_BLOCK_MS);
  });

  it('keeps the first 5,000 anchors of a 5 MB page, and its canonical link after them', async () => {
    const anchor = (i: number) => `<a href="/p/${i}">page ${i}</a>\n`;
    let body = '';
    for (let i = 0; body.length < 5 * 1024 * 1024; i++) body += anchor(i);
    const html = `<html><head></head><body>${body}<link rel="canonical" href="/c"></body></html>`;
    const r = await withLoopProbe(() => pageLinks(Buffer.from(html)));
    expect(r.value.links).toHaveLength(MAX_LINKS_PER_PAGE);
    expect(r.value.links[MAX_LINKS_PER_PAGE - 1]).toBe(`/p/${MAX_LINKS_PER_PAGE - 1}`);
    expect(r.value.canonical).toBe('/c');
    expect(r.elapsedMs).toBeLessThan(MAX_TIME_MS);
    expect(r.worstBlockMs).toBeLessThan(MAX_BLOCK_MS);
  });

  it('reads links as a DOM would: not in scripts, comments or titles; entities decoded; the first base', async () => {
    const html =
      '<head><script>var s = "<a href=/script>"</script><!-- <a href="/comment"> --><title><a href=/t></title><base href=""><base href="/b/"></head>' +
      '<body><a href="/x?a=1&amp;b=2">x</a><a href="/n" rel="NoFollow noopener">n</a><a HREF="/first" href="/second"></a><area href="/area"/></body>';
    await expect(pageLinks(html)).resolves.toEqual({ links: ['/x?a=1&b=2', '/first', '/area'], nofollow: false });
  });
});

describe('a discovery of hostile sitemaps', () => {
  /** A site in memory (no socket): path to body; anything else answers 404. */
  function site(routes: Map<string, Buffer | string>) {
    const requested: string[] = [];
    const fetch = async (url: string): Promise<FetchedUrl> => {
      const path = new URL(url).pathname;
      requested.push(path);
      const body = routes.get(path);
      if (body === undefined) throw new SourceError('http_status', 'the server answered 404 Not Found', false);
      return { bytes: Buffer.from(body), contentType: 'application/xml', finalUrl: url, status: 200 };
    };
    return { fetch, requested };
  }
  const discover = (fetch: DiscoveryFetch, pages: string[]) =>
    discoverAll({ url: 'https://example.com/', maxPages: 100_000, maxDepth: 2, include: [], exclude: [], sitemap: 'auto', agent: 'kb-ingest', fetch, onPage: async (u) => void pages.push(u.pathname) });

  it('reads at most 50 sitemaps of an index that lists 1,000, and says it stopped', async () => {
    const routes = new Map<string, string>();
    routes.set('/sitemap.xml', `<sitemapindex>${Array.from({ length: 1000 }, (_, i) => `<sitemap><loc>https://example.com/s/${i}.xml</loc></sitemap>`).join('')}</sitemapindex>`);
    for (let i = 0; i < 1000; i++) routes.set(`/s/${i}.xml`, `<urlset>${Array.from({ length: 200 }, (_, j) => `<url><loc>https://example.com/d/${i}/${j}</loc></url>`).join('')}</urlset>`);
    const { fetch, requested } = site(routes);
    const pages: string[] = [];
    const r = await withLoopProbe(() => discover(fetch, pages));
    expect(requested.filter((p) => p.endsWith('.xml'))).toHaveLength(MAX_SITEMAPS);
    expect(r.value).toMatchObject({ truncated: true, fromSitemaps: true, pagesAdded: (MAX_SITEMAPS - 1) * 200 });
    expect(r.elapsedMs).toBeLessThan(MAX_TIME_MS);
    expect(r.worstBlockMs).toBeLessThan(MAX_BLOCK_MS);
  });

  it('skips a gzip bomb with a sitemap_skipped warning, reads it once, and keeps the pages of the other sitemap', async () => {
    const routes = new Map<string, Buffer | string>([
      ['/robots.txt', 'User-agent: *\nSitemap: https://example.com/bomb.xml.gz\nSitemap: https://example.com/deep.xml.gz\nSitemap: https://example.com/good.xml\n'],
      ['/bomb.xml.gz', gzipSync(Buffer.alloc(SITEMAP_MAX_BYTES + 1024, 0x20))],
      ['/deep.xml.gz', gzipSync(`<urlset>${'<loc>'.repeat(180_000)}`)],
      ['/good.xml', '<urlset><url><loc>https://example.com/a</loc></url><url><loc>https://example.com/b</loc></url></urlset>'],
    ]);
    const { fetch, requested } = site(routes);
    const pages: string[] = [];
    const r = await withLoopProbe(() => discover(fetch, pages));
    expect(pages).toEqual(['/a', '/b']);
    expect(r.value.warnings).toEqual([
      { code: 'sitemap_skipped', url: 'https://example.com/bomb.xml.gz', message: expect.stringMatching(/inflates past/) },
      { code: 'sitemap_skipped', url: 'https://example.com/deep.xml.gz', message: expect.stringMatching(/more than 32 deep/) },
    ]);
    expect(requested.filter((p) => p === '/bomb.xml.gz')).toHaveLength(1);
    expect(r.elapsedMs).toBeLessThan(MAX_TIME_MS);
    expect(r.worstBlockMs).toBeLessThan(MAX_BLOCK_MS);
  });
});

describe('a hostile robots.txt', () => {
  it('is refused when its wildcard rules would make every URL check slow, before any sitemap is read', async () => {
    // 30 KB: before this bound, checking a sitemap's 50,000 URLs against it held the loop for tens of seconds.
    const robots = `User-agent: *\n${Array.from({ length: 2000 }, (_, i) => `Disallow: /*q${i}*z\n`).join('')}Sitemap: https://example.com/sitemap.xml\n`;
    const requested: string[] = [];
    const fetch: DiscoveryFetch = async (url) => {
      requested.push(new URL(url).pathname);
      if (new URL(url).pathname !== '/robots.txt') throw new SourceError('http_status', 'the server answered 404 Not Found', false);
      return { bytes: Buffer.from(robots), contentType: 'text/plain', finalUrl: url, status: 200 };
    };
    const r = await failureWithLoopProbe(() =>
      discoverAll({ url: 'https://example.com/', maxPages: 100, maxDepth: 2, include: [], exclude: [], sitemap: 'auto', agent: 'kb-ingest', fetch, onPage: async () => undefined }),
    );
    expect(r.error).toMatchObject({ code: 'fetch_failed', retryable: false, message: expect.stringMatching(/patterns with \*/) });
    expect(requested).toEqual(['/robots.txt']);
    expect(r.elapsedMs).toBeLessThan(2_000);
  });
});

describe('a start URL the address policy refuses', () => {
  it('ends the discovery fetch_blocked at once, not retryable, without connecting', async () => {
    const config = loadConfig({ URL_FETCH_ALLOW_CIDRS: '127.0.0.0/8' });
    const lookups: string[] = [];
    // The name resolves to a private address; nothing may ever connect to it.
    const lookup: LookupFunction = (hostname, options, callback) => {
      lookups.push(hostname);
      if (options.all) callback(null, [{ address: '10.0.0.1', family: 4 }]);
      else callback(null, '10.0.0.1', 4);
    };
    const connects: ConnectTarget[] = [];
    const connect = (target: ConnectTarget): never => {
      connects.push(target);
      throw new Error('no connection may be opened in this test');
    };
    const site = { url: 'http://blocked.test/docs/' } as StoredSite;
    const fetch = siteFetcher(config, undefined, { lookup, connect })(site);
    const r = await failureWithLoopProbe(() =>
      discoverAll({ url: site.url, maxPages: 10, maxDepth: 2, include: [], exclude: [], sitemap: 'auto', agent: 'kb-ingest', fetch, onPage: async () => undefined }),
    );
    expect(isSourceError(r.error)).toBe(true);
    expect(r.error).toMatchObject({ code: 'fetch_blocked', retryable: false });
    expect(lookups).toEqual(['blocked.test']);
    expect(connects).toEqual([]);
    expect(r.elapsedMs).toBeLessThan(2_000);
  });
});
