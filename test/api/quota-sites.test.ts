import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { generatedPages, SiteServer } from '../helpers/site-server.js';
import { waitFor } from '../helpers/wait.js';
import { startTestWorker } from '../helpers/worker-harness.js';
import type { RunningWorker } from '../../worker/main.js';
import { call } from './support.js';

interface SiteBody {
  status: string;
  pagesFound: number;
  pagesAdded: number;
  truncated: boolean;
  truncatedReason?: string;
}
interface KbBody {
  kbId: string;
  status: string;
  files: { documentId: string; siteId?: string }[];
  sites?: SiteBody[];
}

let h: Harness;
let worker: RunningWorker;
let site: SiteServer;

beforeAll(async () => {
  // The site is served on loopback, which the fetcher reaches only through this allow-list.
  h = await createHarness({ URL_FETCH_ALLOW_CIDRS: '127.0.0.0/8', URL_FETCH_HOST_SPACING_MS: '0', URL_FETCH_MAX_PER_HOST: '8', CRAWL_MAX_PAGES: '500' });
  const pages = generatedPages(50);
  site = new SiteServer({ pages, sitemap: [...pages.keys()] });
  await site.start();
  worker = await startTestWorker(h);
});
afterAll(async () => {
  await worker.close();
  await site.stop();
  await h.close();
});

async function createSiteKb(key: string, texts: string[] = [], settings: Record<string, unknown> = {}): Promise<KbBody> {
  const form = new FormData();
  form.set('knowledge_base_name', 'site under quota');
  form.set('knowledge_base_sites', JSON.stringify([{ url: `${site.origin}/docs/p0.html`, maxPages: 50, ...settings }]));
  if (texts.length > 0) form.set('knowledge_base_texts', JSON.stringify(texts));
  const res = await call(h.app, 'POST', '/v1/knowledge-bases', { key, body: form });
  expect(res.status, res.text).toBe(201);
  return res.body as KbBody;
}

/** The knowledge base once its site's discovery has ended. */
async function discovered(key: string, kbId: string): Promise<KbBody> {
  let last: KbBody | undefined;
  return waitFor(
    'the site discovered',
    async () => {
      last = (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).body as KbBody;
      return last.sites?.every((s) => s.status !== 'discovering') ? last : undefined;
    },
    { timeoutMs: 60_000, describe: () => JSON.stringify({ sites: last?.sites, files: last?.files.length }) },
  );
}

describe("a site's pages under the workspace's quotas", () => {
  it('stops at the per-knowledge-base quota of 10 of a site with maxPages 50, and says so', async () => {
    const key = await h.key('ws-site-kb-full');
    await h.store.quotas.set('ws-site-kb-full', { sourcesPerKnowledgeBase: 10 });
    const kb = await discovered(key, (await createSiteKb(key)).kbId);
    expect(kb.files.length).toBeLessThanOrEqual(10);
    expect(kb.files).toHaveLength(10);
    expect(kb.sites![0]).toMatchObject({ status: 'done', pagesAdded: 10, truncated: true, truncatedReason: 'knowledge_base_full' });
  });

  it('adds no page to a workspace at its stored-bytes quota', async () => {
    const key = await h.key('ws-site-bytes-full');
    await h.store.quotas.set('ws-site-bytes-full', { storedBytes: 4 });
    const kb = await discovered(key, (await createSiteKb(key, ['abcd'])).kbId);
    expect(kb.files.filter((f) => f.siteId)).toEqual([]);
    expect(kb.sites![0]).toMatchObject({ status: 'done', pagesAdded: 0, truncated: true, truncatedReason: 'workspace_full' });
  });

  it('adds no more pages than the sources-in-flight quota leaves, also from its last batch', async () => {
    const key = await h.key('ws-site-in-flight');
    await h.store.quotas.set('ws-site-in-flight', { sourcesInFlight: 3 });
    // p1 and p10 to p19: 11 pages, one batch, committed once the discovery has ended.
    const kb = await discovered(key, (await createSiteKb(key, [], { include: ['/docs/p1*'] })).kbId);
    expect(kb.files.length).toBeLessThanOrEqual(3);
    expect(kb.sites![0]).toMatchObject({ status: 'done', pagesFound: 11, truncated: true, truncatedReason: 'sources_in_flight' });
  });
});
