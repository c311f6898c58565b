import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { pageLinks } from '../../worker/sites/links.js';
import { isSameSite, pageKey, pageUrl, pathFilter, siteOrigin } from '../../worker/sites/site-url.js';
import { parseSitemap, SITEMAP_MAX_BYTES } from '../../worker/sites/sitemap.js';

const origin = siteOrigin(new URL('https://www.example.com/docs/'));

describe('site URLs', () => {
  it('treats the www. twin as the same site and rewrites it to the site host', () => {
    expect(pageUrl('https://example.com/a', 'https://www.example.com/', origin)?.href).toBe('https://www.example.com/a');
    expect(isSameSite(new URL('https://example.com:8443/a'), origin)).toBe(false);
    expect(pageUrl('http://www.example.com/a', origin.host, origin)).toBeUndefined();
    expect(pageUrl('https://other.example.com/a', 'https://www.example.com/', origin)).toBeUndefined();
    expect(pageUrl('mailto:a@example.com', 'https://www.example.com/', origin)).toBeUndefined();
  });

  it('drops fragments, tracking and session parameters and path session ids', () => {
    const url = pageUrl('/p;jsessionid=AB12?utm_source=x&id=3&fbclid=9&sessionid=7#top', 'https://www.example.com/', origin)!;
    expect(url.href).toBe('https://www.example.com/p?id=3');
  });

  it('keys trailing-slash and parameter-order variants as one page', () => {
    const a = pageUrl('/docs/?b=2&a=1', 'https://www.example.com/', origin)!;
    const b = pageUrl('https://example.com/docs?a=1&b=2', 'https://www.example.com/', origin)!;
    expect(pageKey(a)).toBe(pageKey(b));
    expect(pageKey(pageUrl('/docs/x', 'https://www.example.com/', origin)!)).not.toBe(pageKey(a));
  });

  it('matches include and exclude path globs', () => {
    const keep = pathFilter(['/docs/**'], ['/docs/archive/', '*.pdf']);
    const at = (p: string) => new URL(p, 'https://www.example.com');
    expect(keep(at('/docs/a/b.html'))).toBe(true);
    expect(keep(at('/docs/archive/2019/x.html'))).toBe(false);
    expect(keep(at('/blog/x'))).toBe(false);
    expect(pathFilter([], ['/*.pdf'])(at('/a.pdf'))).toBe(false);
    expect(pathFilter([], ['/*.pdf'])(at('/d/a.pdf'))).toBe(true);
  });
});

describe('sitemaps', () => {
  const urlset = (locs: string[]) => `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((l) => `<url><loc>${l}</loc></url>`).join('')}</urlset>`;

  it('reads page locations, with entities and CDATA decoded', async () => {
    const parsed = await parseSitemap(Buffer.from(urlset(['https://a.example/x?a=1&amp;b=2', '<![CDATA[https://a.example/y]]>', ' https://a.example/&#x7A; '])));
    expect(parsed).toEqual({ kind: 'urlset', locs: ['https://a.example/x?a=1&b=2', 'https://a.example/y', 'https://a.example/z'], lastmods: [0, 0, 0], truncated: false });
  });

  it("reads each page's <lastmod> in seconds, before or after its <loc>, and 0 for none or one that is no W3C datetime", async () => {
    const xml = `<urlset>
      <url><loc>https://a.example/1</loc><lastmod>2026-11-03T10:00:00+01:00</lastmod></url>
      <url><lastmod>2026-11-03</lastmod><loc>https://a.example/2</loc></url>
      <url><loc>https://a.example/3</loc></url>
      <url><loc>https://a.example/4</loc><lastmod>yesterday</lastmod></url>
      <url><loc>https://a.example/5</loc><lastmod>Tue, 03 Nov 2026 10:00:00 GMT</lastmod></url>
    </urlset>`;
    const parsed = await parseSitemap(Buffer.from(xml));
    expect(parsed.locs).toEqual([1, 2, 3, 4, 5].map((n) => `https://a.example/${n}`));
    expect(parsed.lastmods).toEqual([Date.UTC(2026, 10, 3, 9) / 1000, Date.UTC(2026, 10, 3) / 1000, 0, 0, 0]);
  });

  it('tells a sitemap index apart and reads gzip', async () => {
    const index = '<sitemapindex><sitemap><loc>https://a.example/s1.xml.gz</loc></sitemap></sitemapindex>';
    await expect(parseSitemap(gzipSync(index))).resolves.toMatchObject({ kind: 'index', locs: ['https://a.example/s1.xml.gz'] });
  });

  it('refuses a sitemap that declares entities, so none is ever expanded', async () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]><urlset><url><loc>https://a.example/&lol2;</loc></url></urlset>`;
    await expect(parseSitemap(Buffer.from(bomb))).rejects.toThrow(/entities/);
  });

  it('stops a gzip bomb at the size cap', async () => {
    const bomb = gzipSync(Buffer.alloc(SITEMAP_MAX_BYTES + 1024, 0x20));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    await expect(parseSitemap(bomb)).rejects.toThrow(/inflates past/);
  });

  it('reads a text sitemap of one URL a line', async () => {
    expect((await parseSitemap(Buffer.from('https://a.example/1\nnot a url\nhttps://a.example/2\n'))).locs).toEqual(['https://a.example/1', 'https://a.example/2']);
  });
});

describe('page links', () => {
  it('reads links, canonical, base and nofollow, skipping rel=nofollow links', async () => {
    const html = '<html><head><link rel="canonical" href="/c"><base href="/b/"><meta name="robots" content="index, nofollow"></head><body><a href="x">x</a><a rel="nofollow" href="y">y</a><area href="z"></body></html>';
    expect(await pageLinks(html)).toEqual({ canonical: '/c', base: '/b/', nofollow: true, links: ['x', 'z'] });
  });
});
