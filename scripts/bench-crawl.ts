/**
 * The worst event-loop block of a site discovery, per hostile shape. Each
 * shape is a site served by a node:http server on 127.0.0.1 and discovered
 * through the real discovery and its guarded fetcher (address rules as with
 * URL_FETCH_ALLOW_CIDRS=127.0.0.0/8); a 2 ms timer measures the longest the
 * event loop was held meanwhile (goal: 50 ms at most): `worst block` counts a
 * gap between two ticks only up to the process's CPU time in it (a loaded
 * machine's scheduling is not a block), `worst gap` is the wall clock's. Per shape it prints
 * that block, the discovery's time, the parse of the one hostile document
 * alone, and the outcome. Then the same document read by the parsers these
 * replace (BASELINE, copied below as they were: a `<loc>` regex and a
 * cheerio DOM), each in a child process stopped after --baseline-timeout
 * seconds (default 30), since they hold their loop for the whole parse.
 *
 *   npx tsx scripts/bench-crawl.ts [--no-baseline] [--baseline-timeout 30]
 */
import { fork } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import * as cheerio from 'cheerio';
import { loadConfig } from '../shared/runtime/config.js';
import type { StoredSite } from '../shared/store/site-records.js';
import { discoverAll } from '../test/helpers/discover-all.js';
import { pageLinks } from '../worker/sites/links.js';
import { siteFetcher } from '../worker/sites/site-fetch.js';
import { parseSitemap } from '../worker/sites/sitemap.js';
import { withLoopProbe } from '../test/helpers/loop-block.js';

/** One hostile site: its routes, where discovery starts, and the document that is the attack. */
interface Shape {
  name: string;
  routes: Map<string, [string, Buffer]>;
  start: string;
  sitemap: 'auto' | 'off';
  maxPages: number;
  /** The route whose body is the hostile document, and how it is read. */
  hostile: { path: string; kind: 'sitemap' | 'page' };
}

const html = (body: string) => Buffer.from(`<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`);
const xml = (s: string) => Buffer.from(s);

function shapes(): Shape[] {
  const home: [string, Buffer] = ['text/html', html('<a href="/a">a</a> <a href="/b">b</a>')];
  const leaf: [string, Buffer] = ['text/html', html('<p>leaf</p>')];
  const list: Shape[] = [];

  list.push({
    name: '180,000 unclosed <loc> (gzip)',
    routes: new Map([
      ['/robots.txt', ['text/plain', Buffer.from('User-agent: *\nAllow: /\nSitemap: ORIGIN/sitemap.xml.gz\n')]],
      ['/sitemap.xml.gz', ['application/gzip', gzipSync(`<?xml version="1.0"?><urlset>${'<loc>'.repeat(180_000)}`)]],
      ['/', home], ['/a', leaf], ['/b', leaf],
    ]),
    start: '/', sitemap: 'auto', maxPages: 50, hostile: { path: '/sitemap.xml.gz', kind: 'sitemap' },
  });

  const depth = (400 * 1024) / 5;
  list.push({
    name: '400 KB of nested <div>',
    routes: new Map([['/', ['text/html', html(`${'<div>'.repeat(depth)}<a href="/a">a</a>`)]], ['/a', leaf]]),
    start: '/', sitemap: 'off', maxPages: 50, hostile: { path: '/', kind: 'page' },
  });

  let anchors = '';
  // Just under the 5 MB a page is read to.
  for (let i = 0; anchors.length < 5 * 1024 * 1024 - 200; i++) anchors += `<a href="/p/${i}">page ${i}</a>\n`;
  const pages = new Map<string, [string, Buffer]>([['/', ['text/html', html(anchors)]]]);
  for (let i = 0; i < 60; i++) pages.set(`/p/${i}`, leaf);
  list.push({ name: '5 MB page of anchors', routes: pages, start: '/', sitemap: 'off', maxPages: 50, hostile: { path: '/', kind: 'page' } });

  const fan = new Map<string, [string, Buffer]>();
  const children = Array.from({ length: 1000 }, (_, i) => `<sitemap><loc>ORIGIN/s/${i}.xml</loc></sitemap>`).join('');
  fan.set('/sitemap.xml', ['application/xml', xml(`<sitemapindex>${children}</sitemapindex>`)]);
  for (let i = 0; i < 1000; i++) {
    const locs = Array.from({ length: 1000 }, (_, j) => `<url><loc>ORIGIN/d/${i}/${j}</loc></url>`).join('');
    fan.set(`/s/${i}.xml`, ['application/xml', xml(`<urlset>${locs}</urlset>`)]);
  }
  list.push({ name: 'sitemap index of 1,000 sitemaps', routes: fan, start: '/', sitemap: 'auto', maxPages: 100_000, hostile: { path: '/sitemap.xml', kind: 'sitemap' } });

  const many = Array.from({ length: 50_000 }, (_, i) => `<url><loc>ORIGIN/d/${i}/a-page-of-the-site</loc></url>`).join('');
  list.push({
    name: '50,000 entries robots.txt disallows',
    routes: new Map([
      ['/robots.txt', ['text/plain', Buffer.from('User-agent: *\nDisallow: /d/\nSitemap: ORIGIN/sitemap.xml\n')]],
      ['/sitemap.xml', ['application/xml', xml(`<urlset>${many}</urlset>`)]],
    ]),
    start: '/', sitemap: 'auto', maxPages: 100, hostile: { path: '/sitemap.xml', kind: 'sitemap' },
  });

  const good = Array.from({ length: 20 }, (_, i) => `<url><loc>ORIGIN/g/${i}</loc></url>`).join('');
  list.push({
    name: 'gzip bomb (50 MB) + a good sitemap',
    routes: new Map([
      ['/robots.txt', ['text/plain', Buffer.from('User-agent: *\nSitemap: ORIGIN/bomb.xml.gz\nSitemap: ORIGIN/sitemap.xml\n')]],
      ['/bomb.xml.gz', ['application/gzip', gzipSync(Buffer.alloc(50 * 1024 * 1024 + 1024, 0x20))]],
      ['/sitemap.xml', ['application/xml', xml(`<urlset>${good}</urlset>`)]],
    ]),
    start: '/', sitemap: 'auto', maxPages: 100, hostile: { path: '/bomb.xml.gz', kind: 'sitemap' },
  });
  return list;
}

/** Runs `work` under the event-loop probe of the tests; returns its result or error, the worst block and gap, and the time taken. */
async function probed<T>(work: () => Promise<T>): Promise<{ value?: T; error?: unknown; worstMs: number; gapMs: number; ms: number }> {
  const r = await withLoopProbe(async (): Promise<{ value?: T; error?: unknown }> => {
    try {
      return { value: await work() };
    } catch (error) {
      return { error };
    }
  });
  return { ...r.value, worstMs: r.worstBlockMs, gapMs: r.worstGapMs, ms: r.elapsedMs };
}

async function serve(shape: Shape): Promise<{ server: Server; origin: string }> {
  let origin = '';
  const server = createServer((req, res) => {
    const route = shape.routes.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (!route) return void res.writeHead(404).end('not here');
    const body = route[0] === 'application/gzip' ? route[1] : Buffer.from(route[1].toString('latin1').replaceAll('ORIGIN', origin), 'latin1');
    res.writeHead(200, { 'content-type': route[0] }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, origin };
}

async function runShape(shape: Shape): Promise<string[]> {
  const { server, origin } = await serve(shape);
  try {
    const config = loadConfig({ URL_FETCH_ALLOW_CIDRS: '127.0.0.0/8' });
    const url = origin + shape.start;
    const fetch = siteFetcher(config, undefined)({ url } as StoredSite);
    let added = 0;
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      added = 0;
      runs.push(
        await probed(() =>
          discoverAll({ url, maxPages: shape.maxPages, maxDepth: 2, include: [], exclude: [], sitemap: shape.sitemap, agent: 'kb-ingest', fetch, onPage: async () => void (added += 1) }),
        ),
      );
    }
    const d = runs.at(-1)!;
    const worst = runs.map((r) => r.worstMs);
    const outcome = d.error
      ? `failed: ${(d.error as Error).message}`
      : `${added} pages${d.value!.truncated ? ', truncated' : ''}${d.value!.warnings.map((w) => `; ${w.code}: ${w.message}`).join('')}`;
    const bytes = (await fetch(origin + shape.hostile.path, 60 * 1024 * 1024)).bytes;
    const p = await probed<unknown>(() => (shape.hostile.kind === 'sitemap' ? parseSitemap(bytes) : pageLinks(bytes)));
    const parsed = p.error ? `${(p.error as Error).name}: ${(p.error as Error).message}` : describeParse(p.value);
    return [shape.name, `${bytes.length}`, `${ms(median(worst))} / ${ms(Math.max(...worst))}`, ms(Math.max(...runs.map((r) => r.gapMs))), ms(median(runs.map((r) => r.ms))), ms(p.ms), ms(p.worstMs), outcome, parsed];
  } finally {
    server.close();
  }
}

function describeParse(v: unknown): string {
  const r = v as { locs?: string[]; links?: string[]; truncated?: boolean };
  return r.locs ? `${r.locs.length} entries${r.truncated ? ' (truncated)' : ''}` : `${r.links?.length ?? 0} links`;
}

const ms = (n: number) => `${Math.round(n)}`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** Discoveries per shape (the first one also compiles the parser). */
const RUNS = 3;

// ---- BASELINE: the parsers before this change, copied as they were, to measure them on the same documents. ----

const BASELINE_LOC = /<(?:[\w-]+:)?loc\b[^>]*>([\s\S]*?)<\/(?:[\w-]+:)?loc\s*>/gi;

function baselineParseSitemap(bytes: Buffer): number {
  let raw = bytes;
  if (raw[0] === 0x1f && raw[1] === 0x8b) raw = gunzipSync(raw, { maxOutputLength: 50 * 1024 * 1024 });
  const text = raw.toString('utf8');
  if (/<!ENTITY/i.test(text)) throw new Error('the sitemap declares XML entities');
  let n = 0;
  for (const m of text.matchAll(BASELINE_LOC)) {
    if (n >= 50_000) break;
    if (m[1]!.trim()) n += 1;
  }
  return n;
}

function baselinePageLinks(html: string): number {
  const $ = cheerio.load(html, { scriptingEnabled: false });
  let n = 0;
  $('a[href], area[href]').each(() => {
    if (n >= 5_000) return false;
    n += 1;
    return undefined;
  });
  return n;
}

/** In a child: reads one document with the baseline parser and reports the time (all of it one block of the loop). */
async function baselineChild(): Promise<void> {
  const shape = shapes().find((s) => s.name === process.argv[3])!;
  const body = shape.routes.get(shape.hostile.path)![1];
  const began = performance.now();
  let outcome: string;
  try {
    outcome = shape.hostile.kind === 'sitemap' ? `${baselineParseSitemap(body)} entries` : `${baselinePageLinks(body.toString('utf8'))} links`;
  } catch (err) {
    outcome = `Error: ${(err as Error).message}`;
  }
  process.send!({ ms: performance.now() - began, outcome });
}

function baseline(name: string, timeoutS: number): Promise<string> {
  return new Promise((resolve) => {
    const child = fork(fileURLToPath(import.meta.url), ['--baseline-child', name], { execArgv: ['--import', 'tsx'], stdio: 'ignore' });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(`> ${timeoutS * 1000} ms (stopped; the loop was held all along)`);
    }, timeoutS * 1000);
    child.once('message', (m: { ms: number; outcome: string }) => {
      clearTimeout(timer);
      child.kill();
      resolve(`${ms(m.ms)} ms blocked, ${m.outcome}`);
    });
  });
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--baseline-child') return baselineChild();
  const timeoutS = Number(args[args.indexOf('--baseline-timeout') + 1]) || 30;
  const header = ['shape', 'doc bytes', `worst block ms (median / max of ${RUNS})`, 'worst gap ms', 'discovery ms (median)', 'parse alone ms', 'its worst block ms', 'discovery outcome', 'parse outcome'];
  console.log(header.join(' | '));
  const all = shapes();
  for (const shape of all) console.log((await runShape(shape)).join(' | '));
  if (args.includes('--no-baseline')) return;
  console.log('\nBASELINE (the regex sitemap scan and cheerio DOM these replace), same documents:');
  for (const shape of all) console.log(`${shape.name} | ${await baseline(shape.name, timeoutS)}`);
}

await main();
