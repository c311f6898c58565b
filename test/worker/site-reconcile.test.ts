import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullSourceQueue, discoverSiteJobId } from '../../shared/queue/jobs.js';
import { createLogger } from '../../shared/runtime/logger.js';
import { reconcile, type ReconcilerDeps } from '../../worker/reconciler.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { createKbWith, startFailingConsumer, waitForJobState } from '../helpers/worker-harness.js';

let h: Harness;
let key: string;
const WS = 'ws_site_reconcile';
const DEADLINE_MS = 60_000;

beforeAll(async () => {
  h = await createHarness({ JOB_ATTEMPTS: '1' });
  key = await h.key(WS);
});
afterAll(async () => h.close());

const deps = (): ReconcilerDeps => ({
  redis: h.redis,
  kbs: h.store.kbs,
  sites: h.store.sites,
  queue: h.queue,
  sourceQueue: bullSourceQueue(h.queue, 1, 50),
  logger: createLogger('silent'),
  processingDeadlineMs: DEADLINE_MS,
});

/** A knowledge base whose only content is a site, still discovering (no worker runs here). */
async function siteOnlyKb(): Promise<{ kbId: string; siteId: string; jobId: string }> {
  const { kbId } = await createKbWith(h, key, (f) => f.set('knowledge_base_sites', JSON.stringify([{ url: 'https://docs.example.com/' }])));
  const [site] = await h.store.sites.list(kbId);
  expect(site?.status).toBe('discovering');
  return { kbId, siteId: site!.siteId, jobId: discoverSiteJobId({ workspaceId: WS, kbId, siteId: site!.siteId, run: 1 }) };
}

const indexed = async (kbId: string): Promise<boolean> => (await h.store.kbs.activeKbs(0, 1000)).some((e) => e.kbId === kbId);

describe('the reconciler and sites still discovering', () => {
  it('keeps a knowledge base whose only content is a discovering site in its work list, and queues a lost discovery again', async () => {
    const { kbId, jobId } = await siteOnlyKb();
    expect(await indexed(kbId)).toBe(true);
    await (await h.queue.getJob(jobId))!.remove();

    const report = await reconcile(deps(), Date.now() + 2 * DEADLINE_MS);
    expect(report.sitesRequeued).toBe(1);
    const again = await h.queue.getJob(jobId);
    expect(again?.name).toBe('site');
    expect(again?.data).toEqual({ workspaceId: WS, kbId, siteId: expect.any(String), run: 1 });
    // Still discovering: the knowledge base stays in the index however old its entry.
    expect(await indexed(kbId)).toBe(true);
    // Its job waits now: a second pass leaves it be.
    expect((await reconcile(deps(), Date.now() + 2 * DEADLINE_MS)).sitesRequeued).toBe(0);
  });

  it('gives a discovery whose job ended without finishing it a fresh job, and past the deadline ends the site failed', async () => {
    const { kbId, siteId, jobId } = await siteOnlyKb();
    // Every attempt fails before it writes anything, as when Redis fails under the worker.
    const consumer = startFailingConsumer(h);
    try {
      await waitForJobState(h, jobId, 'failed');
      expect((await reconcile(deps())).sitesRequeued).toBeGreaterThanOrEqual(1);
      expect(await h.store.sites.get(kbId, siteId)).toMatchObject({ status: 'discovering' });
      await waitForJobState(h, jobId, 'failed');
    } finally {
      await consumer.close();
    }
    const report = await reconcile(deps(), Date.now() + DEADLINE_MS + 1_000);
    expect(report.sitesFailed).toBeGreaterThanOrEqual(1);
    expect(await h.store.sites.get(kbId, siteId)).toMatchObject({ status: 'failed', error: { code: 'internal' } });
    const meta = await h.store.kbs.getMeta(kbId);
    expect(meta?.sitesDiscovering).toBe(0);
  });

  it('queues a lost discovery again after a refresh of the site started it over', async () => {
    const { kbId, siteId } = await siteOnlyKb();
    const consumer = startFailingConsumer(h);
    try {
      await waitForJobState(h, discoverSiteJobId({ workspaceId: WS, kbId, siteId, run: 1 }), 'failed');
    } finally {
      await consumer.close();
    }
    await reconcile(deps(), Date.now() + DEADLINE_MS + 1_000);
    // The refresh restarts the site under run 2; its job is then lost too.
    const run = await h.store.sites.restart({ workspaceId: WS, kbId, siteId }, new Date().toISOString());
    expect(run).toBe(2);
    expect(await indexed(kbId)).toBe(true);
    const report = await reconcile(deps());
    expect(report.sitesRequeued).toBe(1);
    expect(await h.queue.getJob(discoverSiteJobId({ workspaceId: WS, kbId, siteId, run: 2 }))).toBeDefined();
  });
});
