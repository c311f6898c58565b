/**
 * Another workspace's text latency while three sites that ask for
 * `Crawl-delay: 10` are crawled: the fairness measurement of `npm run bench`
 * (scripts/lib/bench-fairness.ts) with three slow discoveries as the flood.
 * Three loopback sites (node:http on 127.0.0.1) of linked pages, each a site
 * source of its own workspace (`sitemap: off`, so the discovery fetches
 * every page it adds, ten seconds apart); once two discoveries (as many as
 * the worker has slots) have read their robots.txt, three other workspaces
 * add one text each. One worker process
 * (WORKER_CONCURRENCY=2, as in the review where the three crawls took both
 * slots). Prints, per run and as medians: the flood's time (until the three
 * discoveries end), each text's time to ready, the longest single job, and
 * the ratio of the slowest text to the fairness bound, min(flood / 4,
 * longest job + 1 s), as for extraction.
 *
 *   npx tsx scripts/bench-crawl-pace.ts [--runs 2] [--pages 5] [--delay 10] [--dist dist] [--no-build]
 *
 * `--dist ../main/dist` measures another compiled tree (the build is then skipped).
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { Queue } from 'bullmq';
import { INGEST_QUEUE, queuePrefix } from '../shared/queue/jobs.js';
import { generatedPages, SiteServer } from '../test/helpers/site-server.js';
import { BenchService, BENCH_PREFIX } from './lib/bench-service.js';
import { OTHER_WORKSPACES } from './lib/bench-fairness.js';
import { median, waitFor } from './lib/bench-util.js';
import { args, flag } from './lib/cli-args.js';

const runs = Number(flag('runs') ?? 2);
const pages = Number(flag('pages') ?? 5);
const delay = Number(flag('delay') ?? 10);
const dist = flag('dist') ?? 'dist';
const SITES = 3;
const ENV = { URL_FETCH_ALLOW_CIDRS: '127.0.0.0/8', URL_FETCH_HOST_SPACING_MS: '0', URL_FETCH_MAX_PER_HOST: '8' };

interface PaceRun {
  floodSeconds: number;
  textSeconds: number[];
  longestJobSeconds: number;
  /** Requests the three sites answered during the run (robots.txt, discovery and extraction). */
  siteRequests: number;
}

const fmt = (n: number) => n.toFixed(1);

async function paceRun(svc: BenchService): Promise<PaceRun> {
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const sites = Array.from({ length: SITES }, () => new SiteServer({ pages: generatedPages(pages + 3), robots: [`Crawl-delay: ${delay}`] }));
  for (const s of sites) await s.start();
  const procs = await svc.startWorkers(1, 2, ENV);
  const queue = new Queue(INGEST_QUEUE, { connection: svc.redis, prefix: queuePrefix(BENCH_PREFIX) });
  try {
    const crawlKbs: string[] = [];
    const started = performance.now();
    for (const [i, site] of sites.entries()) {
      const key = await svc.keyFor(`ws_crawl_${i}_${run}`);
      const kbId = await svc.createKb(key);
      await svc.patch(
        kbId,
        (form) => form.set('knowledge_base_sites', JSON.stringify([{ url: `${site.origin}/docs/p0.html`, sitemap: 'off', maxPages: pages, maxDepth: 5 }])),
        key,
      );
      crawlKbs.push(kbId);
    }
    // Two discoveries (as many as the worker has slots) are under way: each has read robots.txt and
    // waits out its Crawl-delay, in a slot or as a delayed job.
    await waitFor(async () => sites.filter((s) => (s.hits.get('/robots.txt') ?? 0) > 0).length >= 2, 120_000, 'the discoveries to start', 50);
    const texts = await Promise.all(
      Array.from({ length: OTHER_WORKSPACES }, async (_, i) => {
        const key = await svc.keyFor(`ws_other_${i}_${run}`);
        const sent = performance.now();
        const kbId = await svc.createKb(key, [`Workspace ${i}: the clinic opens at nine.`]);
        await svc.settled(kbId, 1);
        return (performance.now() - sent) / 1000;
      }),
    );
    for (const kbId of crawlKbs) {
      await waitFor(async () => ((await svc.store.kbs.getMeta(kbId))?.sitesDiscovering ?? 1) === 0, 1_800_000, 'the discoveries to end', 100);
    }
    const floodSeconds = (performance.now() - started) / 1000;
    await waitFor(async () => (await queue.getActiveCount()) === 0, 60_000, 'the last job to be marked done');
    let longest = 0;
    for (const job of await queue.getJobs(['completed', 'failed'], 0, -1)) {
      if (job.processedOn && job.finishedOn) longest = Math.max(longest, (job.finishedOn - job.processedOn) / 1000);
    }
    await queue.clean(0, 100_000, 'completed');
    await queue.clean(0, 100_000, 'failed');
    const siteRequests = sites.reduce((n, s) => n + s.hitsUnder('/'), 0);
    return { floodSeconds, textSeconds: texts, longestJobSeconds: longest, siteRequests };
  } finally {
    await queue.close();
    await svc.stopWorkers(procs);
    for (const s of sites) await s.stop();
  }
}

async function main(): Promise<void> {
  if (dist === 'dist' && !args.includes('--no-build')) spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
  console.log(`${SITES} sites of ${pages} pages (Crawl-delay: ${delay}, links only), ${OTHER_WORKSPACES} other workspaces' texts; ${dist}; load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const svc = await BenchService.start(dist);
  const all: PaceRun[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const r = await paceRun(svc);
      all.push(r);
      console.log(`run ${i + 1}: flood ${fmt(r.floodSeconds)} s; texts ${r.textSeconds.map(fmt).join(', ')} s; longest job ${fmt(r.longestJobSeconds)} s; ${r.siteRequests} requests at the sites`);
    }
  } finally {
    await svc.close();
  }
  const flood = median(all.map((r) => r.floodSeconds));
  const worst = Math.max(...all.flatMap((r) => r.textSeconds));
  const textMedian = median(all.flatMap((r) => r.textSeconds));
  const longest = Math.max(...all.map((r) => r.longestJobSeconds));
  const bound = Math.min(flood / 4, longest + 1);
  console.log(`flood (median) ${fmt(flood)} s; texts: median ${fmt(textMedian)} s, slowest ${fmt(worst)} s of ${all.length * OTHER_WORKSPACES}`);
  console.log(`bound: min(flood / 4 = ${fmt(flood / 4)} s, longest job + 1 = ${fmt(longest + 1)} s) = ${fmt(bound)} s; slowest text / bound = ${(worst / bound).toFixed(2)} (goal <= 1)`);
  console.log(`slowest text / flood = ${(worst / flood).toFixed(3)} (goal <= 0.25)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
