import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCursor } from '../../shared/feed/cursor.js';
import { eventId } from '../../shared/webhooks/webhook-events.js';
import { call } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { generatedPages, SiteServer } from '../helpers/site-server.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { startTestWorker } from '../helpers/worker-harness.js';
import type { RunningWorker } from '../../worker/main.js';
import { SITEMAP_MAX_BYTES } from '../../worker/sites/sitemap.js';

interface SiteBody {
  siteId: string;
  status: string;
  pagesFound: number;
  pagesAdded: number;
  truncated: boolean;
  error?: { code: string; message: string };
  warnings?: { code: string; url: string; message: string }[];
}
interface KbBody {
  kbId: string;
  status: string;
  files: { documentId: string; content: string; status: string; siteId?: string; charCount?: number }[];
  sites?: SiteBody[];
}

let h: Harness;
let key: string;
let worker: RunningWorker;
let elsewhere: Server;
let elsewhereHits = 0;

beforeAll(async () => {
  // The site is on loopback, which URL sources may reach only with this switch (as in a local demo).
  h = await createHarness({ URL_FETCH_ALLOW_PRIVATE: 'true', URL_FETCH_HOST_SPACING_MS: '0', URL_FETCH_MAX_PER_HOST: '8', CRAWL_MAX_PAGES: '500' });
  key = await h.key('ws-sites');
  elsewhere = createServer((_req, res) => {
    elsewhereHits += 1;
    res.end('<html><body>elsewhere</body></html>');
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  worker = await startTestWorker(h);
});
afterAll(async () => {
  await worker.close();
  elsewhere.close();
  await h.close();
});

const elsewhereUrl = (): string => `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/landing`;

async function createSiteKb(site: Record<string, unknown>): Promise<KbBody> {
  const form = new FormData();
  form.set('knowledge_base_name', 'site test');
  form.set('knowledge_base_sites', JSON.stringify([site]));
  const res = await call(h.app, 'POST', '/v1/knowledge-bases', { key, body: form });
  expect(res.status, res.text).toBe(201);
  return res.body as KbBody;
}

const readKb = async (kbId: string, apiKey = key): Promise<KbBody> => (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key: apiKey })).body as KbBody;

/** Waits until the site's discovery has ended and every source has settled. */
async function settled(kbId: string, apiKey = key): Promise<KbBody> {
  let last: KbBody | undefined;
  return waitFor(
    'the site discovered and its pages settled',
    async () => {
      last = await readKb(kbId, apiKey);
      return last.status !== 'in_progress' && last.sites?.every((s) => s.status !== 'discovering') ? last : undefined;
    },
    { timeoutMs: 60_000, describe: () => JSON.stringify({ status: last?.status, sites: last?.sites, files: last?.files.length }) },
  );
}

const paths = (kb: KbBody): string[] => kb.files.map((f) => new URL(f.content).pathname + new URL(f.content).search).sort();

/** A knowledge base of another workspace's key with one site read from its sitemap only; its id. */
async function sitemapKb(apiKey: string, name: string, origin: string): Promise<string> {
  const form = new FormData();
  form.set('knowledge_base_name', name);
  form.set('knowledge_base_sites', JSON.stringify([{ url: `${origin}/`, sitemap: 'only' }]));
  const res = await call(h.app, 'POST', '/v1/knowledge-bases', { key: apiKey, body: form });
  expect(res.status, res.text).toBe(201);
  return (res.body as KbBody).kbId;
}

/** Refreshes the knowledge base's first site (202) and waits until it has settled again. */
async function refreshFirstSite(kb: KbBody): Promise<KbBody> {
  const refresh = await call(h.app, 'POST', `/v1/knowledge-bases/${kb.kbId}/sites/${kb.sites![0]!.siteId}/refresh`, { key });
  expect(refresh.status).toBe(202);
  return settled(kb.kbId);
}

/** The text of the page source whose URL ends with `path`. */
async function pageText(kb: KbBody, path: string): Promise<string> {
  const doc = kb.files.find((f) => f.content.endsWith(path))!;
  return ((await call(h.app, 'GET', `/v1/knowledge-bases/${kb.kbId}/documents/${doc.documentId}`, { key })).body as { text: string }).text;
}

describe('a site source from its sitemap', () => {
  it('adds every allowed page of the sitemap exactly once, and never fetches a disallowed one', async () => {
    const site = new SiteServer({
      pages: generatedPages(30),
      robots: ['Disallow: /private/'],
      sitemap: [...generatedPages(30).keys(), '/docs/p3.html#again', '/docs/p4.html?utm_source=mail', '/private/secret.html', 'http://other.example/docs/x.html'],
      gzip: true,
    });
    await site.start();
    try {
      const created = await createSiteKb({ url: `${site.origin}/` });
      expect(created.status).toBe('in_progress');
      expect(created.sites).toEqual([expect.objectContaining({ status: 'discovering', maxPages: 100, maxDepth: 3, sitemap: 'auto' })]);
      const kb = await settled(created.kbId);
      expect(kb.sites![0]).toMatchObject({ status: 'done', pagesFound: 30, pagesAdded: 30, truncated: false });
      expect(paths(kb)).toEqual([...generatedPages(30).keys()].sort());
      expect(kb.files.every((f) => f.status === 'ready' && f.siteId === kb.sites![0]!.siteId)).toBe(true);
      expect(site.hitsUnder('/private/')).toBe(0);
      // One request per page: the extraction; discovery read only robots.txt and the sitemap.
      for (const p of generatedPages(30).keys()) expect(site.hits.get(p), p).toBe(1);
      expect(kb.status).toBe('ready');
    } finally {
      await site.stop();
    }
  });
});

describe('a sitemap that cannot be read', () => {
  it('is skipped with a sitemap_skipped warning on the site while the other sitemap adds its pages', async () => {
    // 1 KB of gzip that inflates past the 50 MB cap, named in robots.txt before the good sitemap.
    const bomb = gzipSync(Buffer.alloc(SITEMAP_MAX_BYTES + 1024, 0x20));
    const site = new SiteServer({ pages: generatedPages(4), robots: [], sitemap: [...generatedPages(4).keys()], extraSitemaps: new Map([['/bomb.xml.gz', bomb]]) });
    await site.start();
    const receiver = await startReceiver();
    const hook = await call(h.app, 'POST', '/v1/webhooks', {
      key,
      body: JSON.stringify({ url: `${receiver.origin}/discovered`, events: ['site.discovered'] }),
      headers: { 'content-type': 'application/json' },
    });
    expect(hook.status, hook.text).toBe(201);
    receiver.on('/discovered', { secret: hook.body.secret, statuses: [200] });
    try {
      const created = await createSiteKb({ url: `${site.origin}/` });
      const kb = await settled(created.kbId);
      const warning = { code: 'sitemap_skipped', url: `${site.origin}/bomb.xml.gz`, message: expect.stringMatching(/inflates past/) };
      expect(kb.sites![0]).toMatchObject({ status: 'done', pagesAdded: 4, warnings: [warning] });
      // site.discovered says it as the site does.
      const event = await waitFor('site.discovered delivered', () => receiver.at('/discovered').find((r) => r.verified?.data.kbId === created.kbId)?.verified);
      expect(event).toMatchObject({ type: 'site.discovered', data: { status: 'done', pagesAdded: 4, warnings: [warning] } });
      expect(paths(kb)).toEqual([...generatedPages(4).keys()].sort());
      // Read once: a sitemap's own fault is final, not a reason to run the discovery again.
      expect(site.hits.get('/bomb.xml.gz')).toBe(1);
      const one = await call(h.app, 'GET', `/v1/knowledge-bases/${created.kbId}/sites/${kb.sites![0]!.siteId}`, { key });
      expect(one.body).toMatchObject({ warnings: [warning] });
    } finally {
      await call(h.app, 'DELETE', `/v1/webhooks/${hook.body.webhookId}`, { key });
      await receiver.close();
      await site.stop();
    }
  });
});

describe('a site source crawled by its links', () => {
  it('stops an endless calendar at maxPages, says so, and follows no redirect off the site', async () => {
    const site = new SiteServer({ pages: generatedPages(5), robots: ['Disallow: /private/'], awayTo: elsewhereUrl() });
    await site.start();
    try {
      const created = await createSiteKb({ url: `${site.origin}/docs/p0.html`, sitemap: 'off', maxPages: 15, maxDepth: 10 });
      const kb = await settled(created.kbId);
      const s = kb.sites![0]!;
      expect(s).toMatchObject({ status: 'done', pagesAdded: 15, truncated: true });
      expect(s.pagesFound).toBeGreaterThan(s.pagesAdded);
      expect(kb.files).toHaveLength(15);
      const found = paths(kb);
      expect(new Set(found).size).toBe(15);
      for (const p of generatedPages(5).keys()) expect(found).toContain(p);
      expect(found.some((p) => p.includes('utm_') || p.includes('sessionid'))).toBe(false);
      expect(found.filter((p) => p.startsWith('/calendar')).length).toBe(10);
      expect(found).not.toContain('/missing');
      expect(found).not.toContain('/loop');
      expect(site.hitsUnder('/private/')).toBe(0);
      expect(elsewhereHits).toBe(0);
      // The crawl's bound: at most two requests per page it may add (plus robots.txt and a few).
      expect(site.hitsUnder('/calendar')).toBeLessThanOrEqual(15 * 2 + 10 + 15);
    } finally {
      await site.stop();
    }
  });
});

describe('a site kept in sync', () => {
  it('adds new pages, re-extracts changed ones and removes pages missed twice, on refresh', async () => {
    const pages = generatedPages(6);
    const site = new SiteServer({ pages, sitemap: [...pages.keys()], robots: [] });
    await site.start();
    try {
      const created = await createSiteKb({ url: `${site.origin}/`, sitemap: 'only' });
      let kb = await settled(created.kbId);
      const siteId = kb.sites![0]!.siteId;
      expect(kb.files).toHaveLength(6);

      pages.delete('/docs/p0.html');
      pages.set('/docs/p1.html', 'Page 1 now explains something entirely different and longer than before.');
      pages.set('/docs/p9.html', 'Page 9 is new.');
      site.spec.sitemap = [...pages.keys()];
      const refresh = () => call(h.app, 'POST', `/v1/knowledge-bases/${created.kbId}/sites/${siteId}/refresh`, { key });
      expect((await refresh()).status).toBe(202);
      kb = await settled(created.kbId);
      expect(paths(kb)).toContain('/docs/p9.html');
      // One miss is not enough to remove a page.
      expect(paths(kb)).toContain('/docs/p0.html');
      const changed = kb.files.find((f) => f.content.endsWith('/docs/p1.html'))!;
      const doc = await call(h.app, 'GET', `/v1/knowledge-bases/${created.kbId}/documents/${changed.documentId}`, { key });
      expect((doc.body as { text: string }).text).toContain('entirely different');

      expect((await refresh()).status).toBe(202);
      kb = await settled(created.kbId);
      expect(paths(kb)).toEqual([...pages.keys()].sort());
      expect(kb.sites![0]).toMatchObject({ status: 'done', pagesAdded: 6 });
    } finally {
      await site.stop();
    }
  });

  it('re-extracts the pages whose body changed on refresh, and answers the others with a 304', async () => {
    const pages = generatedPages(6);
    // The body served changes while the file's date does not: only the ETag tells.
    const site = new SiteServer({ pages, sitemap: [...pages.keys()], robots: [], etags: true, lastModified: 'Tue, 03 Nov 2026 10:00:00 GMT' });
    await site.start();
    try {
      const created = await createSiteKb({ url: `${site.origin}/`, sitemap: 'only' });
      let kb = await settled(created.kbId);
      expect(kb.files).toHaveLength(6);
      const changed = ['/docs/p1.html', '/docs/p2.html', '/docs/p3.html'];
      for (const p of changed) pages.set(p, `${p} now says something new for the refresh check.`);
      kb = await refreshFirstSite(kb);
      for (const p of changed) expect(await pageText(kb, p), p).toContain('something new for the refresh check');
      for (const p of ['/docs/p0.html', '/docs/p4.html', '/docs/p5.html']) expect(site.notModified.get(p), p).toBe(1);
      for (const p of changed) expect(site.notModified.get(p), p).toBeUndefined();
    } finally {
      await site.stop();
    }
  });

  it('fetches again without validators the pages whose sitemap <lastmod> moved past their last fetch, from a server that answers every conditional request 304', async () => {
    const pages = generatedPages(5);
    const lastmods = new Map([...pages.keys()].map((p) => [p, '2026-01-05']));
    const site = new SiteServer({ pages, sitemap: [...pages.keys()], lastmods, robots: [], etags: true, always304: true });
    await site.start();
    try {
      const created = await createSiteKb({ url: `${site.origin}/`, sitemap: 'only' });
      let kb = await settled(created.kbId);
      expect(kb.files.filter((f) => f.status === 'ready')).toHaveLength(5);
      // A <lastmod> a second or more after the pages were fetched (the comparison is in whole seconds).
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const changed = ['/docs/p1.html', '/docs/p3.html'];
      for (const p of changed) {
        pages.set(p, `${p} was rewritten after the first crawl.`);
        lastmods.set(p, new Date().toISOString().replace(/\.\d+Z$/, '+00:00'));
      }
      kb = await refreshFirstSite(kb);
      for (const p of changed) {
        expect(await pageText(kb, p), p).toContain('was rewritten after the first crawl');
        expect(site.notModified.get(p), p).toBeUndefined();
      }
      // The others were asked conditionally, and kept their extraction.
      for (const p of ['/docs/p0.html', '/docs/p2.html', '/docs/p4.html']) expect(site.notModified.get(p), p).toBe(1);
    } finally {
      await site.stop();
    }
  });

  it('gives one source for a page listed both by its URL and by a URL that redirects to it, and keeps it one on refresh', async () => {
    const pages = generatedPages(3);
    pages.set('/docs/git.html', 'Git is the version control system of the project.');
    const redirects = new Map([['/docs/index.html', '/docs/git.html']]);
    const site = new SiteServer({ pages, redirects, sitemap: ['/docs/index.html', ...pages.keys()], robots: [] });
    await site.start();
    try {
      const created = await createSiteKb({ url: `${site.origin}/`, sitemap: 'only' });
      let kb = await settled(created.kbId);
      expect(paths(kb)).toEqual([...pages.keys()].sort());
      const git = kb.files.find((f) => f.content.endsWith('/docs/git.html'))!;
      expect(git.status).toBe('ready');
      for (let round = 0; round < 2; round++) {
        kb = await refreshFirstSite(kb);
        expect(paths(kb)).toEqual([...pages.keys()].sort());
        expect(kb.files.find((f) => f.content.endsWith('/docs/git.html'))!.documentId).toBe(git.documentId);
      }
      expect(kb.sites![0]).toMatchObject({ status: 'done', pagesAdded: 4 });
    } finally {
      await site.stop();
    }
  });

  it('settles the knowledge base once when the last page in flight is a redirect removed as an alias', async () => {
    const own = await h.key('ws-site-alias');
    const receiver = await startReceiver();
    const pages = generatedPages(2);
    pages.set('/docs/git.html', 'Git is the version control system of the project.');
    // The redirect answers last, so the alias it makes is the last source in flight.
    const site = new SiteServer({ pages, redirects: new Map([['/docs/index.html', '/docs/git.html']]), redirectDelayMs: 1500, sitemap: ['/docs/index.html', ...pages.keys()], robots: [] });
    await site.start();
    try {
      const hook = await call(h.app, 'POST', '/v1/webhooks', {
        key: own,
        body: JSON.stringify({ url: `${receiver.origin}/settled`, events: ['knowledge_base.settled'] }),
        headers: { 'content-type': 'application/json' },
      });
      expect(hook.status, hook.text).toBe(201);
      receiver.on('/settled', { secret: hook.body.secret, statuses: [200] });
      const kbId = await sitemapKb(own, 'alias settles', site.origin);
      const kb = await settled(kbId, own);
      expect(paths(kb)).toEqual([...pages.keys()].sort());
      expect(site.hits.get('/docs/index.html')).toBe(1);
      const settles = () => receiver.at('/settled').filter((r) => r.verified?.type === 'knowledge_base.settled' && r.verified.data.kbId === kbId);
      await waitFor('knowledge_base.settled delivered', async () => settles().length > 0 || undefined, { timeoutMs: 15_000 });
      // Nothing further comes.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(settles()).toHaveLength(1);
      expect(settles()[0]!.verified!.data.sourceCounts).toEqual({ pending: 0, processing: 0, ready: 3, failed: 0 });
    } finally {
      await site.stop();
      await receiver.close();
    }
  });

  it('announces the pages a rediscovery removes and a deleted site as knowledge_base.changed with the range they wrote', async () => {
    const own = await h.key('ws-site-events');
    const hook = await call(h.app, 'POST', '/v1/webhooks', {
      key: own,
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', events: ['knowledge_base.changed'] }),
      headers: { 'content-type': 'application/json' },
    });
    expect(hook.status, hook.text).toBe(201);
    const pages = generatedPages(3);
    const site = new SiteServer({ pages, sitemap: [...pages.keys()], robots: [] });
    await site.start();
    try {
      const kbId = await sitemapKb(own, 'announced', site.origin);
      const siteId = (await settled(kbId, own)).sites![0]!.siteId;
      const feedEnd = async (after?: string): Promise<{ cursor: string; kinds: string[] }> => {
        const kinds: string[] = [];
        for (let cursor = after; ; ) {
          const page = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/changes?size=1000${cursor ? `&after=${cursor}` : ''}`, { key: own });
          expect(page.status, page.text).toBe(200);
          kinds.push(...page.body.data.map((e: { type: string }) => e.type));
          cursor = page.body.nextCursor as string;
          if (!page.body.hasMore) return { cursor, kinds };
        }
      };
      const announced = async (before: string) => {
        const { cursor, kinds } = await feedEnd(before);
        expect(kinds.length).toBeGreaterThan(0);
        expect(kinds.every((k) => k === 'chunk.deleted')).toBe(true);
        // The worker's relay stores it and queues its deliveries shortly after the write.
        const id = eventId(kbId, 'changed', decodeCursor(cursor));
        const stored = await waitFor('the event body stored for its deliveries', async () => (await h.store.webhooks.getEvent('ws-site-events', id)) ?? undefined);
        expect(JSON.parse(stored!)).toMatchObject({ type: 'knowledge_base.changed', data: { kbId, afterCursor: before, toCursor: cursor } });
        return cursor;
      };

      pages.delete('/docs/p0.html');
      site.spec.sitemap = [...pages.keys()];
      const refresh = () => call(h.app, 'POST', `/v1/knowledge-bases/${kbId}/sites/${siteId}/refresh`, { key: own });
      expect((await refresh()).status).toBe(202);
      await settled(kbId, own);
      const before = (await feedEnd()).cursor;
      expect((await refresh()).status).toBe(202);
      expect(paths(await settled(kbId, own))).toEqual([...pages.keys()].sort());
      const afterDrop = await announced(before);

      expect((await call(h.app, 'DELETE', `/v1/knowledge-bases/${kbId}/sites/${siteId}`, { key: own })).status).toBe(204);
      await announced(afterDrop);
    } finally {
      await site.stop();
    }
  });

  it('never doubles a page listed by hand, and DELETE removes the site with its pages only', async () => {
    const pages = generatedPages(4);
    const site = new SiteServer({ pages, sitemap: [...pages.keys()], robots: [] });
    await site.start();
    try {
      const form = new FormData();
      form.set('knowledge_base_name', 'mixed');
      form.set('knowledge_base_urls', JSON.stringify([`${site.origin}/docs/p0.html`]));
      form.set('knowledge_base_sites', JSON.stringify([{ url: `${site.origin}/sitemap.xml` }]));
      const res = await call(h.app, 'POST', '/v1/knowledge-bases', { key, body: form });
      expect(res.status, res.text).toBe(201);
      const kbId = (res.body as KbBody).kbId;
      let kb = await settled(kbId);
      expect(paths(kb)).toEqual([...pages.keys()].sort());
      const siteId = kb.sites![0]!.siteId;
      expect(kb.sites![0]).toMatchObject({ pagesFound: 4, pagesAdded: 3 });

      const one = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/sites/${siteId}`, { key });
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ siteId, status: 'done' });
      expect((await call(h.app, 'DELETE', `/v1/knowledge-bases/${kbId}/sites/${siteId}`, { key })).status).toBe(204);
      kb = await readKb(kbId);
      expect(paths(kb)).toEqual(['/docs/p0.html']);
      expect(kb.sites).toBeUndefined();
      expect((await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/sites/${siteId}`, { key })).status).toBe(404);
      expect((await call(h.app, 'DELETE', `/v1/knowledge-bases/${kbId}/sites/${siteId}`, { key })).status).toBe(404);
    } finally {
      await site.stop();
    }
  });
});

describe('the workspace budget of pages in discovery after a crash', () => {
  it('runs a discovery although a worker that crashed mid-discovery still holds the whole budget', async () => {
    // What a worker killed mid-discovery leaves, its job then removed: its pages taken, its `finally` never run.
    const cap = h.config.CRAWL_WORKSPACE_MAX_PAGES;
    expect(await h.store.sites.reserveBudget('ws-sites', 'kb_gone.site_gone.d1', cap, { pages: cap, discoveries: 1 })).toEqual({ ok: true });
    const site = new SiteServer({ pages: generatedPages(3), sitemap: [...generatedPages(3).keys()] });
    await site.start();
    try {
      const created = await createSiteKb({ url: `${site.origin}/`, maxPages: 10 });
      const kb = await settled(created.kbId);
      expect(kb.sites![0]).toMatchObject({ status: 'done', pagesAdded: 3 });
      expect(await h.redis.hgetall(h.store.keys.crawlBudget('ws-sites'))).toEqual({});
    } finally {
      await site.stop();
    }
  });
});
