/**
 * A site source against a real documentation site: a Debian HTML
 * documentation package (by default doxygen-doc, /usr/share/doc/doxygen/html:
 * the Doxygen manual and its generated examples, 359 pages) served on
 * loopback with a generated sitemap.xml and a robots.txt that disallows part
 * of it, plus pages that redirect off the site, loop, answer 404 and an
 * endless calendar. It checks and prints:
 *
 *   1. from the sitemap: every allowed page ingested exactly once, no
 *      disallowed page fetched (requests counted at the origin), pages/s;
 *   2. by its links (sitemap off) from the manual's index, with the traps
 *      linked from it: the crawl ends at maxPages, says so, and follows
 *      neither the redirect off the site nor the loop;
 *   3. a refresh after deleting and changing pages, twice: changed pages
 *      re-extracted, deleted ones removed after the second miss, unchanged
 *      ones answered 304 to a conditional request.
 *
 *   npx tsx scripts/crawl-debian-site.ts [--dir /usr/share/doc/doxygen/html] [--no-build]
 *
 * It exits 1 when a check fails, and 0 saying so when the folder is absent
 * (apt-get install doxygen-doc, or --dir for another package's HTML).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { extname, join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { BenchService } from './lib/bench-service.js';
import { waitFor } from './lib/bench-util.js';
import { args, flag } from './lib/cli-args.js';

const dir = flag('dir') ?? '/usr/share/doc/doxygen/html';
/** The part robots.txt disallows (and the sitemap still lists, to be refused). */
const DISALLOWED = flag('disallow') ?? '/examples/diagrams/';
const LINK_CAP = 60;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

function htmlFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.html')) out.push(`/${relative(root, p)}`);
    }
  };
  walk(root);
  return out.sort();
}

/** The package's folder on loopback, counting requests by path, with its pages changeable between runs. */
class DebianSite {
  readonly hits = new Map<string, number>();
  readonly notModified = new Map<string, number>();
  /** Pages deleted (404) or changed (text appended) since the start. */
  readonly deleted = new Set<string>();
  readonly changed = new Map<string, string>();
  private server: Server | undefined;
  constructor(
    readonly root: string,
    readonly pages: string[],
    private readonly elsewhere: string,
  ) {}

  get origin(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  hitsUnder(prefix: string): number {
    let n = 0;
    for (const [p, c] of this.hits) if (p.startsWith(prefix)) n += c;
    return n;
  }

  private body(path: string): Buffer | undefined {
    if (this.deleted.has(path) || path.includes('..')) return undefined;
    const file = join(this.root, decodeURIComponent(path));
    if (!existsSync(file) || !statSync(file).isFile()) return undefined;
    const bytes = readFileSync(file);
    const extra = this.changed.get(path);
    if (extra) {
      // Inside the page's content (a Doxygen page ends its content with this comment), not after its footer.
      const html = bytes.toString('utf8');
      const end = html.includes('</div><!-- contents -->') ? '</div><!-- contents -->' : '</body>';
      return Buffer.from(html.replace(end, `<p>${extra}</p>${end}`));
    }
    if (path === '/index.html') {
      // The traps, linked from the start page of the link crawl.
      const traps = '<p><a href="/away">away</a> <a href="/loop">loop</a> <a href="/missing.html">missing</a> <a href="/calendar?m=0">calendar</a></p>';
      return Buffer.from(bytes.toString('utf8').replace('</body>', `${traps}</body>`));
    }
    return bytes;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname === '/' ? '/index.html' : url.pathname;
      const key = path + url.search;
      this.hits.set(key, (this.hits.get(key) ?? 0) + 1);
      const send = (status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': type, ...headers });
        res.end(body);
      };
      if (path === '/robots.txt') return send(200, 'text/plain', `User-agent: *\nDisallow: ${DISALLOWED}\nSitemap: ${this.origin}/sitemap.xml\n`);
      if (path === '/sitemap.xml') {
        const listed = this.pages.filter((p) => !this.deleted.has(p));
        const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${listed.map((p) => `<url><loc>${this.origin}${p}</loc></url>`).join('\n')}\n</urlset>\n`;
        return send(200, 'application/xml', xml);
      }
      if (path === '/away') return send(302, 'text/plain', '', { location: this.elsewhere });
      if (path === '/loop') return send(302, 'text/plain', '', { location: '/loop' });
      if (path === '/calendar') {
        const m = Number(url.searchParams.get('m') ?? 0);
        return send(200, 'text/html', `<!doctype html><html><head><title>Month ${m}</title></head><body><p>Month ${m} has no events.</p><a href="/calendar?m=${m + 1}">next</a> <a href="/calendar?m=${m - 1}&sessionid=${m}">prev</a></body></html>`);
      }
      const body = this.body(path);
      if (!body) return send(404, 'text/html', '<html><body>not here</body></html>');
      const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
      if (req.headers['if-none-match'] === etag) {
        this.notModified.set(path, (this.notModified.get(path) ?? 0) + 1);
        res.writeHead(304, { etag });
        return res.end();
      }
      return send(200, TYPES[extname(path)] ?? 'application/octet-stream', body, { etag });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

interface KbView {
  status: string;
  files: { documentId: string; content: string; status: string; siteId?: string; error?: { code: string } }[];
  sites?: { siteId: string; status: string; pagesFound: number; pagesAdded: number; truncated: boolean }[];
}

let failures = 0;
function check(what: string, ok: boolean, detail = ''): void {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? `: ${detail}` : ''}`);
  if (!ok) failures += 1;
}

async function main(): Promise<void> {
  if (!existsSync(dir)) {
    console.log(`skipped: ${dir} is absent (apt-get install doxygen-doc, or --dir for another Debian HTML documentation package)`);
    return;
  }
  if (!args.includes('--no-build')) spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
  const pages = htmlFiles(dir);
  const allowed = pages.filter((p) => !p.startsWith(DISALLOWED));
  console.log(`${dir}: ${pages.length} HTML pages, ${pages.length - allowed.length} under ${DISALLOWED} (disallowed); load before ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);

  let elsewhereHits = 0;
  const elsewhere = createServer((_req, res) => {
    elsewhereHits += 1;
    res.end('<html><body>elsewhere</body></html>');
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  const site = new DebianSite(dir, pages, `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/landing`);
  await site.start();
  const svc = await BenchService.start('dist');
  const workers = await svc.startWorkers(1, 2, {
    URL_FETCH_ALLOW_PRIVATE: 'true',
    URL_FETCH_HOST_SPACING_MS: '0',
    URL_FETCH_MAX_PER_HOST: '8',
    CRAWL_MAX_PAGES: '1000',
  });
  const api = async (method: string, path: string, body?: FormData): Promise<{ status: number; json: unknown }> => {
    const res = await fetch(`${svc.base}/v1${path}`, { method, headers: { 'X-API-Key': svc.apiKey }, ...(body && { body }) });
    return { status: res.status, json: res.headers.get('content-type')?.includes('json') ? await res.json() : null };
  };
  const read = async (kbId: string) => (await api('GET', `/knowledge-bases/${kbId}`)).json as KbView;
  const settle = async (kbId: string): Promise<KbView> => {
    let kb = await read(kbId);
    await waitFor(async () => (kb = await read(kbId)).status !== 'in_progress' && !kb.sites?.some((s) => s.status === 'discovering'), 900_000, 'the site to settle', 200);
    return kb;
  };
  const pathsOf = (kb: KbView) => kb.files.map((f) => new URL(f.content).pathname + new URL(f.content).search);
  const siteKb = async (settings: Record<string, unknown>): Promise<string> => {
    const form = new FormData();
    form.set('knowledge_base_name', 'debian site');
    form.set('knowledge_base_sites', JSON.stringify([settings]));
    const res = await api('POST', '/knowledge-bases', form);
    if (res.status !== 201) throw new Error(`POST: ${res.status} ${JSON.stringify(res.json)}`);
    return (res.json as { kbId: string }).kbId;
  };

  try {
    // 1. From the sitemap.
    const started = performance.now();
    const kbId = await siteKb({ url: `${site.origin}/`, maxPages: 1000 });
    let kb = await settle(kbId);
    const seconds = (performance.now() - started) / 1000;
    const found = pathsOf(kb);
    console.log(`sitemap: ${kb.files.length} pages in ${seconds.toFixed(1)} s (${(kb.files.length / seconds).toFixed(1)} pages/s end to end), site ${JSON.stringify(kb.sites?.[0])}`);
    check('every allowed page is a source exactly once', found.length === allowed.length && new Set(found).size === found.length && allowed.every((p) => found.includes(p)), `${found.length} sources, ${new Set(found).size} distinct, ${allowed.length} allowed`);
    const failed = kb.files.filter((f) => f.status !== 'ready');
    check('every page ready', failed.length === 0, failed.slice(0, 5).map((f) => `${f.content} ${f.status} ${f.error?.code}`).join(', '));
    check('no disallowed page fetched', site.hitsUnder(DISALLOWED) === 0, `${site.hitsUnder(DISALLOWED)} requests under ${DISALLOWED}`);
    const twice = allowed.filter((p) => (site.hits.get(p) ?? 0) !== 1);
    check('each allowed page fetched once', twice.length === 0, twice.slice(0, 5).join(', '));

    // 3. Refresh after deleting 5 pages and changing 3, twice.
    const gone = allowed.filter((p) => p.startsWith('/examples/')).slice(0, 5);
    const changedPages = allowed.filter((p) => !p.startsWith('/examples/') && p !== '/index.html').slice(0, 3);
    for (const p of gone) site.deleted.add(p);
    for (const p of changedPages) site.changed.set(p, `Changed for the refresh check ${p}.`);
    const siteId = kb.sites![0]!.siteId;
    site.notModified.clear();
    const refreshStarted = performance.now();
    for (let round = 1; round <= 2; round++) {
      const r = await api('POST', `/knowledge-bases/${kbId}/sites/${siteId}/refresh`);
      if (r.status !== 202) throw new Error(`refresh: ${r.status} ${JSON.stringify(r.json)}`);
      kb = await settle(kbId);
      const now = pathsOf(kb);
      console.log(`refresh ${round}: ${now.length} pages, ${gone.filter((p) => now.includes(p)).length} of the deleted still there`);
      if (round === 1) check('one miss keeps a deleted page', gone.every((p) => now.includes(p)));
    }
    const refreshSeconds = (performance.now() - refreshStarted) / 1000;
    const after = pathsOf(kb);
    check('deleted pages removed after the second miss', gone.every((p) => !after.includes(p)) && after.length === allowed.length - gone.length, `${after.length} pages`);
    for (const p of changedPages) {
      const doc = kb.files.find((f) => f.content.endsWith(p))!;
      const text = ((await api('GET', `/knowledge-bases/${kbId}/documents/${doc.documentId}`)).json as { text: string }).text;
      check(`changed page re-extracted (${p})`, text.includes('Changed for the refresh check'));
    }
    const unchanged = allowed.length - gone.length - changedPages.length;
    const conditional = [...site.notModified.values()].reduce((a, b) => a + b, 0);
    console.log(`refreshes: ${refreshSeconds.toFixed(1)} s for two; ${conditional} answers 304 for ${unchanged} unchanged pages over two refreshes`);
    check('unchanged pages cost a conditional request (304)', conditional >= unchanged, `${conditional} of ${2 * unchanged}`);

    // 2. By its links, with the traps linked from the start page.
    site.hits.clear();
    const linkKb = await siteKb({ url: `${site.origin}/index.html`, sitemap: 'off', maxPages: LINK_CAP, maxDepth: 10 });
    const linked = await settle(linkKb);
    const lp = pathsOf(linked);
    const s = linked.sites![0]!;
    console.log(`links: site ${JSON.stringify(s)}; ${site.hitsUnder('/')} requests at the origin, ${site.hitsUnder('/calendar')} of them to the calendar`);
    check('the crawl ends at maxPages and says so', s.pagesAdded === LINK_CAP && s.truncated && lp.length === LINK_CAP && new Set(lp).size === LINK_CAP);
    check('no redirect off the site followed', elsewhereHits === 0);
    check('no loop, 404 or disallowed page added', !lp.includes('/loop') && !lp.includes('/away') && !lp.includes('/missing.html') && !lp.some((p) => p.startsWith(DISALLOWED)));
    check('no disallowed page fetched', site.hitsUnder(DISALLOWED) === 0);
    check('no session or tracking parameters', !lp.some((p) => p.includes('sessionid')));
  } finally {
    await svc.stopWorkers(workers);
    await svc.close();
    await site.stop();
    elsewhere.close();
  }
  console.log(`load after ${loadavg().map((l) => l.toFixed(1)).join(' ')}; ${failures === 0 ? 'all checks passed' : `${failures} checks failed`}`);
  process.exitCode = failures === 0 ? 0 : 1;
}

await main();
