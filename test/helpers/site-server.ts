import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';

/** What the loopback site serves; tests change it between discoveries. */
export interface SiteSpec {
  /** Page paths under /docs/ with their body text. */
  pages: Map<string, string>;
  /** Paths listed in /sitemap.xml (pages and others); none: no sitemap (404). */
  sitemap?: string[];
  /** Serve the sitemap gzipped at /sitemap.xml.gz and name that in robots.txt. */
  gzip?: boolean;
  /** Lines of robots.txt after `User-agent: *`; none: robots.txt answers 404. */
  robots?: string[];
  /** Where /away redirects (another origin). */
  awayTo?: string;
  /** Pages carry an ETag of their body and answer 304 to a matching If-None-Match. */
  etags?: boolean;
  /**
   * Pages also carry this Last-Modified (a file's date, unchanged when the body served changes),
   * and answer 304 when If-None-Match matches or If-Modified-Since is at least this date, as
   * some servers do although RFC 9110 says If-Modified-Since is ignored beside If-None-Match.
   */
  lastModified?: string;
  /** A server that answers 304 to any conditional request (If-None-Match, If-Modified-Since), matching or not. */
  always304?: boolean;
  /** Each listed path's `<lastmod>` in the sitemap. */
  lastmods?: Map<string, string>;
  /** How long a redirect of `redirects` takes to answer (ms); none: at once. */
  redirectDelayMs?: number;
  /** Paths that answer 301 to another path of the site (after `redirectDelayMs`). */
  redirects?: Map<string, string>;
  /** More sitemaps, path to body (served as sent), named in robots.txt before /sitemap.xml. */
  extraSitemaps?: Map<string, Buffer>;
}

/**
 * A generated site on 127.0.0.1 that counts every request by path: pages
 * under /docs/ linking to each other and to a disallowed /private/ page, a
 * redirect off the origin (/away), a redirect loop (/loop), a 404
 * (/missing), and an endless calendar (/calendar?m=N links to N+1).
 */
export class SiteServer {
  readonly hits = new Map<string, number>();
  /** 304 answers by path. */
  readonly notModified = new Map<string, number>();
  /** When each request came (ms since the epoch), in order. */
  readonly times: { path: string; at: number }[] = [];
  private server: Server | undefined;
  constructor(public spec: SiteSpec) {}

  get origin(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  hitsUnder(prefix: string): number {
    let n = 0;
    for (const [path, count] of this.hits) if (path.startsWith(prefix)) n += count;
    return n;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname + url.search;
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      this.times.push({ path, at: Date.now() });
      const send = (status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': type, ...headers });
        res.end(body);
      };
      const { spec } = this;
      if (url.pathname === '/robots.txt') {
        if (!spec.robots) return send(404, 'text/plain', 'no robots');
        const extra = [...(spec.extraSitemaps?.keys() ?? [])].map((p) => `Sitemap: ${this.origin}${p}`);
        const sitemap = [...extra, ...(spec.sitemap ? [`Sitemap: ${this.origin}/sitemap.xml${spec.gzip ? '.gz' : ''}`] : [])];
        return send(200, 'text/plain', ['User-agent: *', ...spec.robots, ...sitemap, ''].join('\n'));
      }
      const extra = spec.extraSitemaps?.get(url.pathname);
      if (extra) return send(200, 'application/octet-stream', extra);
      if (url.pathname === '/sitemap.xml' || url.pathname === '/sitemap.xml.gz') {
        if (!spec.sitemap) return send(404, 'text/plain', 'none');
        const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${spec.sitemap
          .map((p) => `  <url><loc>${p.startsWith('http') ? p : this.origin + p}</loc>${spec.lastmods?.has(p) ? `<lastmod>${spec.lastmods.get(p)}</lastmod>` : ''}</url>`)
          .join('\n')}\n</urlset>\n`;
        return url.pathname.endsWith('.gz') ? send(200, 'application/gzip', gzipSync(xml)) : send(200, 'application/xml', xml);
      }
      const redirect = spec.redirects?.get(url.pathname);
      if (redirect) return void setTimeout(() => send(301, 'text/plain', '', { location: redirect }), spec.redirectDelayMs ?? 0);
      if (url.pathname.startsWith('/docs/')) {
        const text = spec.pages.get(url.pathname);
        if (text === undefined) return send(404, 'text/html', '<html><body>gone</body></html>');
        const links = [...spec.pages.keys()].map((p) => `<a href="${p}#top">${p}</a>`).join(' ');
        const extra = '<a href="/private/secret.html">s</a> <a href="/away">a</a> <a href="/loop">l</a> <a href="/missing">m</a> <a href="/calendar?m=0&utm_source=x">c</a>';
        const body = `<!doctype html><html><head><title>${url.pathname}</title></head><body><main><p>${text}</p><nav>${links} ${extra}</nav></main></body></html>`;
        if (!spec.etags) return send(200, 'text/html; charset=utf-8', body);
        const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
        const dated: Record<string, string> = spec.lastModified ? { 'last-modified': spec.lastModified } : {};
        const since = Date.parse(req.headers['if-modified-since'] ?? '');
        const conditional = req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined;
        if (req.headers['if-none-match'] === etag || (spec.lastModified && since >= Date.parse(spec.lastModified)) || (spec.always304 && conditional)) {
          this.notModified.set(url.pathname, (this.notModified.get(url.pathname) ?? 0) + 1);
          res.writeHead(304, { etag, ...dated });
          return res.end();
        }
        return send(200, 'text/html; charset=utf-8', body, { etag, ...dated });
      }
      if (url.pathname === '/calendar') {
        const m = Number(url.searchParams.get('m') ?? 0);
        return send(200, 'text/html', `<!doctype html><html><head><title>Month ${m}</title></head><body><p>Month ${m} has no events.</p><a href="/calendar?m=${m + 1}">next</a> <a href="/calendar?m=${m - 1}&sessionid=${m}">prev</a></body></html>`);
      }
      if (url.pathname === '/away') return send(302, 'text/plain', '', { location: spec.awayTo ?? 'http://127.0.0.2:9/' });
      if (url.pathname === '/loop') return send(302, 'text/plain', '', { location: '/loop' });
      if (url.pathname.startsWith('/private/')) return send(200, 'text/html', '<html><body><p>Secret.</p></body></html>');
      return send(404, 'text/html', '<html><body>not here</body></html>');
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** `count` generated pages /docs/p0.html … with distinct text. */
export function generatedPages(count: number, from = 0): Map<string, string> {
  const pages = new Map<string, string>();
  for (let i = from; i < from + count; i++) pages.set(`/docs/p${i}.html`, `Page ${i} explains topic number ${i} of the manual.`);
  return pages;
}
