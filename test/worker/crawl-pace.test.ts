import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { generatedPages, SiteServer } from '../helpers/site-server.js';
import { waitFor } from '../helpers/wait.js';
import { startTestWorker } from '../helpers/worker-harness.js';
import type { RunningWorker } from '../../worker/main.js';

interface KbBody {
  kbId: string;
  status: string;
  files: { documentId: string; content: string; status: string }[];
  sites?: { siteId: string; status: string; pagesAdded: number }[];
}

let h: Harness;
let worker: RunningWorker;
const servers: SiteServer[] = [];

beforeAll(async () => {
  // Two worker slots, as in the review: three sites asking for a Crawl-delay used to take both.
  h = await createHarness({
    URL_FETCH_ALLOW_CIDRS: '127.0.0.0/8',
    URL_FETCH_HOST_SPACING_MS: '0',
    URL_FETCH_MAX_PER_HOST: '8',
    WORKER_CONCURRENCY: '2',
    // At the two seconds the first test's sites ask for, so that the cap test waits out 2 s gaps, not 3 s.
    CRAWL_MAX_DELAY_SECONDS: '2',
  });
  worker = await startTestWorker(h);
});
afterAll(async () => {
  await worker.close();
  for (const s of servers) await s.stop();
  await h.close();
});

/** A site of `pages` pages linking to each other whose robots.txt asks for `Crawl-delay: delay`. */
async function slowSite(pages: number, delay: number): Promise<SiteServer> {
  const site = new SiteServer({ pages: generatedPages(pages), robots: [`Crawl-delay: ${delay}`] });
  await site.start();
  servers.push(site);
  return site;
}

async function siteKb(key: string, site: SiteServer, maxPages: number): Promise<string> {
  const form = new FormData();
  form.set('knowledge_base_name', 'paced site');
  form.set('knowledge_base_sites', JSON.stringify([{ url: `${site.origin}/docs/p0.html`, sitemap: 'off', maxPages, maxDepth: 5 }]));
  const res = await call(h.app, 'POST', '/v1/knowledge-bases', { key, body: form });
  expect(res.status, res.text).toBe(201);
  return (res.body as KbBody).kbId;
}

const readKb = async (key: string, kbId: string): Promise<KbBody> => (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).body as KbBody;
const discovering = async (key: string, kbId: string): Promise<boolean> => (await readKb(key, kbId)).sites?.[0]?.status === 'discovering';
/** Requests under /docs/ (pages, not robots.txt). */
const pageHits = (site: SiteServer): number => site.hitsUnder('/docs/');

describe('a discovery waiting out a Crawl-delay', () => {
  it('holds no worker slot: another workspace text is ready within seconds while three such sites crawl', async () => {
    const crawler = await h.key('ws-crawler');
    const other = await h.key('ws-other');
    const sites = await Promise.all([slowSite(12, 2), slowSite(12, 2), slowSite(12, 2)]);
    const kbs = [];
    for (const site of sites) kbs.push(await siteKb(crawler, site, 10));
    // The crawls are under way: each running one has read its robots.txt and a first page.
    await waitFor('two discoveries to have fetched pages', () => sites.filter((s) => pageHits(s) > 0).length >= 2, { timeoutMs: 15_000 });

    const started = Date.now();
    const form = new FormData();
    form.set('knowledge_base_name', 'one text');
    form.set('knowledge_base_texts', JSON.stringify(['A single line of text.']));
    const res = await call(h.app, 'POST', '/v1/knowledge-bases', { key: other, body: form });
    expect(res.status, res.text).toBe(201);
    const kbId = (res.body as KbBody).kbId;
    await waitFor('the other workspace text to be ready', async () => (await readKb(other, kbId)).status === 'ready', { timeoutMs: 60_000 });
    const latencyMs = Date.now() - started;
    // A discovery of ten pages two seconds apart lasts some 20 s; sleeping in its slot, the text waited for one to end.
    expect(latencyMs).toBeLessThan(8_000);
    expect((await Promise.all(kbs.map((k) => discovering(crawler, k)))).some(Boolean), 'the crawls were still running').toBe(true);
  }, 120_000);

  it('caps a Crawl-delay at CRAWL_MAX_DELAY_SECONDS', async () => {
    const key = await h.key('ws-capped');
    const site = await slowSite(4, 3600);
    const kbId = await siteKb(key, site, 4);
    const jobId = `${kbId}.${(await readKb(key, kbId)).sites![0]!.siteId}.d1`;
    // Between its steps the discovery is a delayed job holding its state.
    const waiting = await waitFor('a step saved', async () => {
      const job = await h.queue.getJob(jobId);
      return job?.data.state && (await job.getState()) === 'delayed' ? job : undefined;
    }, { timeoutMs: 20_000 });
    expect(waiting.data.state).toMatchObject({ phase: 'links' });
    await waitFor('the discovery to end', async () => !(await discovering(key, kbId)), { timeoutMs: 40_000 });
    // A finished job keeps its references, not its state.
    await waitFor('the job to complete', async () => (await (await h.queue.getJob(jobId))?.getState()) === 'completed');
    expect((await h.queue.getJob(jobId))!.data.state).toBeUndefined();
    const discovery = site.times.filter((t) => t.path.startsWith('/docs/'));
    // Each page is fetched by the discovery, then by its extraction: the discovery's are the first of each path.
    const firsts = discovery.filter((t, i) => discovery.findIndex((u) => u.path === t.path) === i).map((t) => t.at);
    expect(firsts.length).toBe(4);
    // Paced at the cap (2 s), not at the site's hour nor at the 10 s the crawler used to cap it at.
    for (let i = 1; i < firsts.length; i++) {
      expect(firsts[i]! - firsts[i - 1]!).toBeGreaterThanOrEqual(1_900);
      expect(firsts[i]! - firsts[i - 1]!).toBeLessThan(8_000);
    }
  }, 60_000);

  it('stops within seconds when its knowledge base is deleted, and asks the site for nothing more', async () => {
    const key = await h.key('ws-deleted');
    const site = await slowSite(40, 1);
    const kbId = await siteKb(key, site, 30);
    await waitFor('the crawl to be under way', () => pageHits(site) >= 2, { timeoutMs: 15_000 });
    expect((await call(h.app, 'DELETE', `/v1/knowledge-bases/${kbId}`, { key })).status).toBe(204);
    const deletedAt = Date.now();
    const known = new Set(site.times.map((t) => t.path));
    await waitFor('the discovery job to end', async () => {
      const jobs = await h.queue.getJobs(['active', 'delayed', 'waiting', 'prioritized']);
      return !jobs.some((j) => j.name === 'site' && j.data.kbId === kbId);
    }, { timeoutMs: 10_000 });
    // Three of the site's one-second Crawl-delays: a crawl still running would ask for pages in them.
    await new Promise((r) => setTimeout(r, 3_000));
    // A request already under way when the delete came may land; no new page is asked for after.
    const later = site.times.filter((t) => t.at > deletedAt + 500 && !known.has(t.path));
    expect(later).toEqual([]);
  }, 60_000);
});

describe('a workspace discoveries at once', () => {
  it('runs at most CRAWL_WORKSPACE_MAX_DISCOVERIES (2) of them, the others waiting in the queue', async () => {
    // Slots to spare: the bound is the workspace's, not the worker's.
    const more = await startTestWorker(h);
    try {
      const key = await h.key('ws-many');
      // Half-second Crawl-delays: each discovery still lasts over a second and a half, many polls long.
      const sites = await Promise.all([slowSite(3, 0.5), slowSite(3, 0.5), slowSite(3, 0.5)]);
      const kbs: string[] = [];
      for (const site of sites) kbs.push(await siteKb(key, site, 3));
      let most = 0;
      await waitFor('every discovery to end', async () => {
        // A discovery is under way from its first request until its site is done.
        const states = await Promise.all(kbs.map((k) => discovering(key, k)));
        const running = sites.filter((s, i) => s.hits.size > 0 && states[i]).length;
        most = Math.max(most, running);
        return states.every((d) => !d);
      }, { timeoutMs: 60_000 });
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(2);
      for (const site of sites) expect(pageHits(site)).toBeGreaterThan(0);
    } finally {
      await more.close();
    }
  }, 90_000);
});
