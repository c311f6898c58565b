import { describe, expect, it } from 'vitest';
import { SourceError } from '../../shared/source-errors.js';
import type { FetchedUrl } from '../../worker/fetch/fetch-url.js';
import { statusError } from '../../worker/fetch/fetch-errors.js';
import { HostBusyError } from '../../worker/fetch/host-gate.js';
import { discoveryStep, type DiscoverOptions, type DiscoveryResult } from '../../worker/sites/discover.js';
import { initialState } from '../../worker/sites/discovery-state.js';
import { webhookEventSchema } from '../../shared/schemas/webhook.js';
import { siteDiscoveredEvent } from '../../shared/store/outbox-events.js';
import { eventId } from '../../shared/webhooks/webhook-events.js';
import { eventOfEntry } from '../../shared/webhooks/outbox-events.js';

/** A site in memory: path to [content type, body]; anything else answers 404. No socket is opened. */
function fakeSite(routes: Record<string, [string, string]>) {
  const requested: string[] = [];
  const fetch = async (url: string): Promise<FetchedUrl> => {
    const u = new URL(url);
    requested.push(u.pathname + u.search);
    const route = routes[u.pathname + u.search];
    if (!route) throw new SourceError('http_status', 'the server answered 404 Not Found', false);
    return { bytes: Buffer.from(route[1]), contentType: route[0], finalUrl: url, status: 200 };
  };
  return { fetch, requested };
}

const html = (body: string, head = '') => ['text/html', `<html><head>${head}</head><body>${body}</body></html>`] as [string, string];

/**
 * Runs a discovery step by step to its end, as its job does, its state going
 * through JSON between steps; a wait is recorded (ms, rounded to 100) and
 * skipped rather than waited out.
 */
async function run(routes: Record<string, [string, string]>, opts: Partial<DiscoverOptions> = {}, budget = { requests: 20, ms: 5000 }) {
  const site = fakeSite(routes);
  const pages: string[] = [];
  const waits: number[] = [];
  const options: DiscoverOptions = {
    url: 'https://example.com/',
    maxPages: 100,
    maxDepth: 3,
    include: [],
    exclude: [],
    sitemap: 'auto',
    agent: 'kb-ingest',
    fetch: site.fetch,
    maxDelayMs: 30_000,
    onPage: async (u) => void pages.push(u.pathname + u.search),
    ...opts,
  };
  let state = initialState();
  let result: DiscoveryResult | undefined;
  let steps = 0;
  while (!result) {
    steps += 1;
    const step = await discoveryStep(options, state, { requests: budget.requests, until: Date.now() + budget.ms });
    if (step.kind === 'gone') throw new Error('gone');
    if (step.kind === 'done') result = step.result;
    else {
      waits.push(Math.round((step.until - Date.now()) / 100) * 100);
      state = JSON.parse(JSON.stringify({ ...state, nextAt: 0 }));
    }
  }
  return { result, pages, waits, steps, requested: site.requested, state };
}

describe('discoverSite', () => {
  it('honours Disallow for this agent and paces its requests by Crawl-delay, one request a step, never waiting itself', async () => {
    const { pages, waits, requested, steps } = await run({
      '/robots.txt': ['text/plain', 'User-agent: kb-ingest\nDisallow: /private\nCrawl-delay: 2\n\nUser-agent: *\nDisallow: /'],
      '/': html('<a href="/a">a</a><a href="/private/x">x</a>'),
      '/a': html('<a href="/">home</a>'),
    });
    expect(pages.sort()).toEqual(['/', '/a']);
    expect(requested).not.toContain('/private/x');
    expect(waits.length).toBe(requested.length - 1);
    expect(waits.every((ms) => ms === 2000)).toBe(true);
    expect(steps).toBe(requested.length);
  });

  it('caps a Crawl-delay at maxDelayMs (CRAWL_MAX_DELAY_SECONDS)', async () => {
    const { waits } = await run(
      { '/robots.txt': ['text/plain', 'User-agent: *\nCrawl-delay: 3600'], '/': html('<a href="/a">a</a>'), '/a': html('a') },
      { maxDelayMs: 1500 },
    );
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every((ms) => ms === 1500)).toBe(true);
  });

  it('hands its step back on a busy host, and on a 429 for its Retry-After, then fetches the same page again', async () => {
    let busy = 1;
    let limited = 1;
    const site = fakeSite({ '/': html('<a href="/a">a</a>'), '/a': html('a') });
    const fetch: DiscoverOptions['fetch'] = async (url, max) => {
      if (url.endsWith('/') && busy-- > 0) throw new HostBusyError('example.com', 700);
      if (url.endsWith('/a') && limited-- > 0) {
        const err = new SourceError('http_status', 'the server answered 429 Too Many Requests', true);
        err.retryAfterMs = 4000;
        throw err;
      }
      return site.fetch(url);
    };
    const { pages, waits } = await run({}, { fetch, sitemap: 'off' });
    expect(pages).toEqual(['/', '/a']);
    expect(waits).toEqual([700, 4000]);
  });

  it('does a bounded number of requests per step and keeps its state bounded and serialisable', async () => {
    const wide: Record<string, [string, string]> = { '/': html(Array.from({ length: 30 }, (_, i) => `<a href="/w${i}">w</a>`).join('')) };
    for (let i = 0; i < 30; i++) wide[`/w${i}`] = html(`page ${i}`);
    const { pages, steps, requested, waits, state } = await run(wide, { sitemap: 'off' }, { requests: 4, ms: 60_000 });
    expect(pages).toHaveLength(31);
    expect(steps).toBe(Math.ceil(requested.length / 4));
    expect(waits.every((ms) => ms === 0)).toBe(true);
    expect(state.seen.every((k) => /^[0-9a-f]{16}$/.test(k))).toBe(true);
  });

  it('stops before its next request once the site is gone', async () => {
    const site = fakeSite({ '/': html('<a href="/a">a</a>'), '/a': html('a') });
    let alive = true;
    const fetch: DiscoverOptions['fetch'] = async (url) => {
      alive = false;
      return site.fetch(url);
    };
    await expect(run({}, { fetch, sitemap: 'off', alive: async () => alive })).rejects.toThrow('gone');
    expect(site.requested).toEqual(['/robots.txt']);
  });

  it('adds the canonical page once for its variants', async () => {
    const canon = '<link rel="canonical" href="https://www.example.com/article">';
    const { pages } = await run({
      '/': html('<a href="/article?print=1">p</a><a href="/article?ref_src=tw">r</a><a href="/article">c</a>'),
      '/article?print=1': html('print', canon),
      '/article': html('article', canon),
    });
    expect(pages.sort()).toEqual(['/', '/article']);
  });

  it('keeps to maxDepth and reports pages left behind by maxPages', async () => {
    const chain: Record<string, [string, string]> = {};
    for (let i = 0; i < 10; i++) chain[i === 0 ? '/' : `/p${i}`] = html(`<a href="/p${i + 1}">next</a>`);
    const deep = await run(chain, { maxDepth: 2, sitemap: 'off' });
    expect(deep.pages).toEqual(['/', '/p1', '/p2']);
    expect(deep.requested).not.toContain('/p3');

    const wide: Record<string, [string, string]> = { '/': html(Array.from({ length: 30 }, (_, i) => `<a href="/w${i}">w</a>`).join('')) };
    for (let i = 0; i < 30; i++) wide[`/w${i}`] = html(`page ${i}`);
    const capped = await run(wide, { maxPages: 5, sitemap: 'off' });
    expect(capped.result).toMatchObject({ pagesAdded: 5, truncated: true });
    expect(capped.result.pagesFound).toBe(31);
    expect(capped.requested.filter((p) => p.startsWith('/w'))).toHaveLength(4);
  });

  it('fails when a sitemap was asked for and none could be read', async () => {
    await expect(run({ '/': html('home') }, { sitemap: 'only' })).rejects.toThrow(/no sitemap/);
  });

  it('falls back to links when the site has no sitemap (auto)', async () => {
    const { pages, result } = await run({ '/': html('<a href="/b">b</a>'), '/b': html('b') });
    expect(pages).toEqual(['/', '/b']);
    expect(result.fromSitemaps).toBe(false);
  });
});

describe('a 429 or 503 answer', () => {
  it('keeps its Retry-After, in seconds or as a date, and nothing unreadable', () => {
    expect(statusError(429, '7').retryAfterMs).toBe(7000);
    const at = statusError(503, new Date(Date.now() + 60_000).toUTCString()).retryAfterMs!;
    expect(at).toBeGreaterThan(55_000);
    expect(at).toBeLessThanOrEqual(60_000);
    expect(statusError(429, 'soon').retryAfterMs).toBeUndefined();
    expect(statusError(429).retryAfterMs).toBeUndefined();
    expect(statusError(429).retryable).toBe(true);
  });
});

/** The event the relay sends for the site.discovered a finishSite script appends. */
const relayed = (kbId: string, siteId: string, run: number, outcome: Parameters<typeof siteDiscoveredEvent>[3]) => {
  const e = siteDiscoveredEvent(kbId, siteId, run, outcome);
  return eventOfEntry({ id: '1-0', type: e.type, key: e.key, workspaceId: 'w', createdAt: 'now', data: e.data })!;
};

describe('site.discovered', () => {
  it('carries the counts and an id derived from the site and its run', () => {
    const outcome = { state: 'done' as const, pagesFound: 12, pagesAdded: 10, truncated: true };
    const event = relayed('kb_1', 'site_1', 2, outcome);
    expect(event.type).toBe('site.discovered');
    expect(event.id).toBe(eventId('kb_1', 'site_1', 2, 'site.discovered'));
    expect(event.data).toEqual({ kbId: 'kb_1', siteId: 'site_1', status: 'done', pagesFound: 12, pagesAdded: 10, truncated: true });
    expect(relayed('kb_1', 'site_1', 3, outcome).id).not.toBe(event.id);
  });

  it('carries the warnings and the truncatedReason as the site shows them', () => {
    const warnings = [{ code: 'sitemap_skipped' as const, url: 'https://a.example/bomb.xml.gz', message: 'the sitemap inflates past 52428800 bytes' }];
    const outcome = { state: 'done' as const, pagesFound: 4, pagesAdded: 4, truncated: true, truncatedReason: 'knowledge_base_full' as const, warnings };
    const event = relayed('kb_1', 'site_1', 1, outcome);
    expect(event.data).toEqual({ kbId: 'kb_1', siteId: 'site_1', status: 'done', pagesFound: 4, pagesAdded: 4, truncated: true, truncatedReason: 'knowledge_base_full', warnings });
    // The schema of the OpenAPI webhooks section keeps them (an unknown field would be stripped).
    expect(webhookEventSchema.parse(event).data.warnings).toEqual(warnings);
    // None: no field, as on the site.
    expect(relayed('kb_1', 'site_1', 1, { ...outcome, warnings: [] }).data).not.toHaveProperty('warnings');
  });
});
