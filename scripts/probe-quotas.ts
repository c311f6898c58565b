/**
 * The review's quota probes, over HTTP against the API and an in-process
 * worker on a throwaway redis-server (loopback only), printing what each
 * left behind: 20 concurrent POSTs under QUOTA_KNOWLEDGE_BASES=3, 20
 * concurrent one-text PATCHes under a per-knowledge-base quota of 10, 12
 * concurrent 400 KB uploads under a 2 MiB stored-bytes quota, 20 concurrent
 * PATCHes under a sources-in-flight quota of 5 over two knowledge bases, and
 * a site of 200 pages (maxPages 200, served on 127.0.0.1) on a knowledge base
 * with a per-knowledge-base quota of 10 and 20 sources in flight. Needs
 * redis-server on PATH; about half a minute.
 *
 *   npx tsx scripts/probe-quotas.ts
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createApp } from '../api/app.js';
import { loadConfig } from '../shared/runtime/config.js';
import { bullSourceQueue } from '../shared/queue/jobs.js';
import { createLogger } from '../shared/runtime/logger.js';
import { connectRedis, createRedis } from '../shared/redis/redis.js';
import { openIngestQueue, openWebhookQueue } from '../shared/runtime/runtime.js';
import { changeRetention, createStore, searchOptions } from '../shared/store/index.js';
import { startWorker } from '../worker/main.js';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { generatedPages, SiteServer } from '../test/helpers/site-server.js';

const MiB = 1024 * 1024;
const redisServer = await startRedisServer();
const config = loadConfig({
  REDIS_URL: redisServer.url,
  REDIS_KEY_PREFIX: 'probe',
  LOG_LEVEL: 'silent',
  RATE_LIMIT_PER_MINUTE: '0',
  QUOTA_KNOWLEDGE_BASES: '3',
  MAX_UPLOADS_PER_KEY: '16',
  URL_FETCH_ALLOW_CIDRS: '127.0.0.0/8',
  URL_FETCH_HOST_SPACING_MS: '0',
  URL_FETCH_MAX_PER_HOST: '8',
  CRAWL_MAX_PAGES: '500',
});
const redis = createRedis(config, 'api');
await connectRedis(redis);
// Every command in the slow log, to time the quota scripts.
await redis.config('SET', 'slowlog-log-slower-than', '0');
await redis.config('SET', 'slowlog-max-len', '100000');
const store = createStore(redis, { prefix: config.REDIS_KEY_PREFIX, blobTtlSeconds: config.STAGING_TTL_SECONDS, changes: changeRetention(config), ...searchOptions(config) });
const logger = createLogger('silent');
const queue = openIngestQueue(config, 'api');
const webhookQueue = openWebhookQueue(config, 'api');
const app = createApp({ config, redis, store, queue: bullSourceQueue(queue, config.JOB_ATTEMPTS, config.JOB_BACKOFF_MS), logger, ingestQueue: queue, webhookQueue });
const server = await new Promise<Server>((resolve) => {
  const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server)) as Server;
});
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;

async function send(key: string, method: string, path: string, form?: FormData): Promise<{ status: number; body: any }> {
  const res = await fetch(base + path, { method, headers: { 'X-API-Key': key }, ...(form && { body: form }) });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}
const form = (fields: Record<string, string | Blob>): FormData => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
};
const tally = (list: { status: number }[]): string => {
  const by = new Map<number, number>();
  for (const r of list) by.set(r.status, (by.get(r.status) ?? 0) + 1);
  return [...by].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${n}×${s}`).join(' ');
};
const workspace = async (id: string, quotas: Parameters<typeof store.quotas.set>[1]) => {
  await store.quotas.set(id, quotas);
  return (await store.apiKeys.create(id, 'probe', false)).key;
};
const newKb = async (key: string, name: string) => (await send(key, 'POST', '/knowledge-bases', form({ knowledge_base_name: name }))).body.kbId as string;
const usage = async (key: string) => (await send(key, 'GET', '/usage')).body as { storedBytes: { used: number }; sourcesInFlight: { used: number } };

const rows: [string, string, string][] = [];
try {
  {
    const key = await workspace('ws-probe-kbs', {});
    const res = await Promise.all(Array.from({ length: 20 }, (_, i) => send(key, 'POST', '/knowledge-bases', form({ knowledge_base_name: `kb ${i}`, knowledge_base_texts: JSON.stringify([`t${i}`]) }))));
    rows.push(['20 POSTs, QUOTA_KNOWLEDGE_BASES=3', `${(await store.kbs.list('ws-probe-kbs', 0, 100)).total} knowledge bases`, tally(res)]);
  }
  {
    const key = await workspace('ws-probe-sources', { knowledgeBases: 0, sourcesPerKnowledgeBase: 10 });
    const kbId = await newKb(key, 'sources');
    const res = await Promise.all(Array.from({ length: 20 }, (_, i) => send(key, 'PATCH', `/knowledge-bases/${kbId}`, form({ knowledge_base_texts: JSON.stringify([`text ${i}`]) }))));
    const files = (await send(key, 'GET', `/knowledge-bases/${kbId}`)).body.files.length as number;
    rows.push(['20 one-text PATCHes, 10 per knowledge base', `${files} sources`, tally(res)]);
  }
  {
    const key = await workspace('ws-probe-bytes', { knowledgeBases: 0, storedBytes: 2 * MiB });
    const kbId = await newKb(key, 'bytes');
    const res = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        send(key, 'PATCH', `/knowledge-bases/${kbId}`, form({ knowledge_base_files: new File([`${i} `.padEnd(400 * 1024, 'x')], `f${i}.txt`, { type: 'text/plain' }) })),
      ),
    );
    rows.push(['12 × 400 KB uploads, 2 MiB stored bytes', `${(await usage(key)).storedBytes.used} bytes stored (quota ${2 * MiB})`, tally(res)]);
  }
  {
    const key = await workspace('ws-probe-flight', { knowledgeBases: 0, sourcesInFlight: 5 });
    const kbs = [await newKb(key, 'one'), await newKb(key, 'two')];
    const res = await Promise.all(Array.from({ length: 20 }, (_, i) => send(key, 'PATCH', `/knowledge-bases/${kbs[i % 2]}`, form({ knowledge_base_texts: JSON.stringify([`text ${i}`]) }))));
    rows.push(['20 one-text PATCHes, 5 in flight', `${(await usage(key)).sourcesInFlight.used} in flight`, tally(res)]);
  }
  {
    const pages = generatedPages(200);
    const site = new SiteServer({ pages, sitemap: [...pages.keys()] });
    await site.start();
    const worker = await startWorker(config, logger, { reconcileIntervalMs: 3_600_000 });
    try {
      const key = await workspace('ws-probe-site', { knowledgeBases: 0, sourcesPerKnowledgeBase: 10, sourcesInFlight: 20 });
      const created = await send(key, 'POST', '/knowledge-bases', form({ knowledge_base_name: 'site', knowledge_base_sites: JSON.stringify([{ url: `${site.origin}/docs/p0.html`, maxPages: 200 }]) }));
      const kbId = created.body.kbId as string;
      let peak = 0;
      let kb: any;
      const deadline = Date.now() + 120_000;
      for (;;) {
        peak = Math.max(peak, (await usage(key)).sourcesInFlight.used);
        kb = (await send(key, 'GET', `/knowledge-bases/${kbId}`)).body;
        if ((kb.sites[0].status !== 'discovering' && kb.status !== 'in_progress') || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const s = kb.sites[0];
      rows.push([
        'site, maxPages 200, 10 per knowledge base, 20 in flight',
        `${kb.files.length} sources, peak ${peak} in flight`,
        `site ${s.status}, pagesAdded ${s.pagesAdded}, truncated ${s.truncated}${s.truncatedReason ? ` (${s.truncatedReason})` : ''}`,
      ]);
    } finally {
      await worker.close();
      await site.stop();
    }
  }
  // The reservation scripts (their first key is the workspace's holds) and the knowledge-base count.
  const log = (await redis.call('SLOWLOG', 'GET', '100000')) as [number, number, number, string[]][];
  const times = (match: (args: string[]) => boolean) => log.filter((e) => match(e[3])).map((e) => e[2]).sort((a, b) => a - b);
  const holds = times((a) => a[0] === 'evalsha' && (a[3] ?? '').endsWith(':holds'));
  const kbCount = times((a) => a[0] === 'evalsha' && a[2] === '1' && (a[3] ?? '').endsWith(':kbs'));
  const fig = (t: number[]) => (t.length === 0 ? 'none' : `${t.length} calls, median ${t[t.length >> 1]} µs, max ${t[t.length - 1]} µs`);
  rows.push(['reserve/settle scripts', fig(holds), '']);
  rows.push(['knowledge-base count script', fig(kbCount), '']);
} finally {
  server.close();
  await queue.close();
  await webhookQueue.close();
  await redis.quit();
  await redisServer.stop();
}

const width = Math.max(...rows.map((r) => r[0].length));
for (const [probe, left, answers] of rows) console.log(`${probe.padEnd(width)}  ${left.padEnd(44)}  ${answers}`);
