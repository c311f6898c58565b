import { Redis } from 'ioredis';
import { generatedPages, SiteServer } from '../../test/helpers/site-server.js';
import type { BenchService } from './bench-service.js';
import { waitFor } from './bench-util.js';

/** One crawl measurement: the same pages as a site source and as plain URL sources. */
export interface CrawlRun {
  pages: number;
  siteSeconds: number;
  urlSeconds: number;
  /** Redis commands (INFO total_commands_processed) per page, all processes together. */
  siteCommandsPerPage: number;
  urlCommandsPerPage: number;
}

/**
 * The worker may fetch from loopback, with no per-host spacing and eight
 * slots a host, so the site's own pace (not the politeness settings, the
 * same for both) is what is measured.
 */
const CRAWL_ENV = { URL_FETCH_ALLOW_PRIVATE: 'true', URL_FETCH_HOST_SPACING_MS: '0', URL_FETCH_MAX_PER_HOST: '8', CRAWL_MAX_PAGES: '10000' };

async function commandsProcessed(redis: Redis): Promise<number> {
  const info = await redis.info('stats');
  return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? 0);
}

/**
 * `pages` generated HTML pages on a loopback site with a sitemap: once added
 * as one site source (discovery, then extraction of each page), once listed
 * in `knowledge_base_urls` (extraction only); each timed from the PATCH until
 * every page is ready (and the site's discovery ended).
 */
export async function crawlBench(svc: BenchService, pages: number, concurrency: number): Promise<CrawlRun> {
  const all = generatedPages(pages);
  const site = new SiteServer({ pages: all, sitemap: [...all.keys()], robots: ['Disallow: /private/'] });
  await site.start();
  const procs = await svc.startWorkers(1, concurrency, CRAWL_ENV);
  const counter = new Redis(svc.redisUrl);
  try {
    const timed = async (fill: (form: FormData) => void, siteDone: boolean) => {
      const kbId = await svc.createKb();
      const before = await commandsProcessed(counter);
      const started = performance.now();
      await svc.patch(kbId, fill);
      await svc.settled(kbId, pages);
      if (siteDone) {
        await waitFor(async () => ((await svc.store.kbs.getMeta(kbId))?.sitesDiscovering ?? 1) === 0, 600_000, 'the discovery to end', 25);
      }
      const seconds = (performance.now() - started) / 1000;
      return { seconds, commandsPerPage: ((await commandsProcessed(counter)) - before) / pages };
    };
    const url = await timed((f) => f.set('knowledge_base_urls', JSON.stringify([...all.keys()].map((p) => site.origin + p))), false);
    const crawl = await timed((f) => f.set('knowledge_base_sites', JSON.stringify([{ url: `${site.origin}/`, maxPages: pages }])), true);
    return { pages, siteSeconds: crawl.seconds, urlSeconds: url.seconds, siteCommandsPerPage: crawl.commandsPerPage, urlCommandsPerPage: url.commandsPerPage };
  } finally {
    counter.disconnect();
    await svc.stopWorkers(procs);
    await site.stop();
  }
}
