import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractSourceJobId, type ExtractSourceJob } from '../../shared/queue/jobs.js';
import { createLogger } from '../../shared/runtime/logger.js';
import { HostSlots } from '../../shared/store/host-slots.js';
import { HostGate, HostLimiterUnavailableError } from '../../worker/fetch/host-gate.js';
import { startWorker, type RunningWorker } from '../../worker/main.js';
import { createProcessor } from '../../worker/jobs/processor.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { capturingLogger } from '../helpers/log-capture.js';
import { waitFor } from '../helpers/wait.js';
import { createKbWith, waitForDocument } from '../helpers/worker-harness.js';

/** A loopback origin that records how many requests it holds open at once and when each began. */
interface Origin {
  port: number;
  url(path: string): string;
  /** Requests open right now, and the most ever open at once. */
  open: number;
  maxOpen: number;
  /** Arrival time (ms) and path of every request, in order. */
  starts: { at: number; path: string }[];
  /** Answers the requests held so far and every later one after `holdMs` again. */
  release(): void;
  close(): Promise<void>;
}

/**
 * Each request is answered after `holdMs`, or held until release() when `holdMs` is
 * 'until-released'; with `redirectTo`, the answer is a 302 there instead of a page.
 */
async function startOrigin(holdMs: number | 'until-released', redirectTo?: string): Promise<Origin> {
  let held = holdMs === 'until-released';
  const waiting: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    origin.open += 1;
    origin.maxOpen = Math.max(origin.maxOpen, origin.open);
    origin.starts.push({ at: Date.now(), path: req.url ?? '' });
    res.on('close', () => (origin.open -= 1));
    const answer = () => {
      if (redirectTo !== undefined) return void res.writeHead(302, { location: redirectTo }).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<html><head><title>Page ${req.url}</title></head><body><p>Served ${req.url}</p></body></html>`);
    };
    if (held) waiting.push(answer);
    else setTimeout(answer, typeof holdMs === 'number' ? holdMs : 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin: Origin = {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    open: 0,
    maxOpen: 0,
    starts: [],
    release() {
      held = false;
      waiting.splice(0).forEach((answer) => answer());
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return origin;
}

const MAX_PER_HOST = 2;
const SPACING_MS = 300;

let h: Harness;
let key: string;
const origins: Origin[] = [];
const workers: RunningWorker[] = [];
const logs: string[][] = [];

beforeAll(async () => {
  // Loopback origins need URL_FETCH_ALLOW_PRIVATE, as in a local demo. One attempt per job:
  // a saturated host that spent an attempt would end its source failed.
  h = await createHarness({
    URL_FETCH_ALLOW_PRIVATE: 'true',
    URL_FETCH_MAX_PER_HOST: String(MAX_PER_HOST),
    URL_FETCH_HOST_SPACING_MS: String(SPACING_MS),
    URL_FETCH_TIMEOUT_MS: '20000',
    WORKER_CONCURRENCY: '4',
    JOB_ATTEMPTS: '1',
  });
  key = await h.key('ws_hosts');
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
  await Promise.all(origins.map((o) => o.close()));
  await h.close();
});

async function origin(holdMs: number | 'until-released', redirectTo?: string): Promise<Origin> {
  const o = await startOrigin(holdMs, redirectTo);
  origins.push(o);
  return o;
}

/** Two worker replicas on the harness's Redis, four jobs each, with a short in-process wait before a job is handed back. */
async function startReplicas(): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const { logger, lines } = capturingLogger('debug');
    logs.push(lines);
    workers.push(await startWorker(h.config, logger, { reconcileIntervalMs: 3_600_000, hostGate: { maxWaitMs: 400, pollMs: 50, handBackMs: 300 } }));
  }
  // One fetch first, so the gaps measured below do not include the cold start of the fetch path.
  const warm = await origin(0);
  const { kbId, docs } = await addUrls([warm.url('/warm-up')]);
  await expectAllReady(kbId, docs);
}

const handBacks = (): number => logs.flat().filter((l) => l.includes('host busy; job delayed')).length;

/** A processor whose per-host limiter cannot be reached, counting its asks and any fetch (there must be none). */
function limiterAwayProcessor() {
  const probe = { asked: 0, fetched: 0, processor: undefined as unknown as ReturnType<typeof createProcessor> };
  const unreachable = { tryAcquire: () => (probe.asked++, Promise.reject(new Error('Connection is closed.'))) } as unknown as HostSlots;
  probe.processor = createProcessor({
    config: h.config,
    kbs: h.store.kbs,
    logger: createLogger('silent'),
    queue: { enqueue: () => Promise.resolve(), rechunk: () => Promise.resolve(), discover: () => Promise.resolve(), scheduleRefresh: () => Promise.resolve(), nextPriority: () => Promise.resolve(1) },
    hosts: new HostGate(unreachable, { maxPerHost: 2, leaseMs: 60_000, spacingMs: 0 }),
    fetch: () => (probe.fetched++, Promise.reject(new Error('must not fetch'))),
    extract: () => Promise.reject(new Error('must not extract')),
  });
  return probe;
}

async function addUrls(urls: string[]): Promise<{ kbId: string; docs: string[] }> {
  return createKbWith(h, key, (f) => f.set('knowledge_base_urls', JSON.stringify(urls)));
}

async function expectAllReady(kbId: string, docs: string[]): Promise<void> {
  for (const documentId of docs) {
    const doc = await waitForDocument(h, key, kbId, documentId, 60_000);
    expect(doc.status, JSON.stringify(doc.error)).toBe('ready');
  }
}

describe('when the per-host limiter cannot be asked', () => {
  it('fails the attempt before the claim and never fetches, leaving the source pending for a retry', async () => {
    const site = await origin(0);
    const { kbId, docs } = await addUrls([site.url('/redis-away')]);
    const documentId = docs[0]!;
    const probe = limiterAwayProcessor();
    const processor = probe.processor;
    const data: ExtractSourceJob = { workspaceId: 'ws_hosts', kbId, documentId, run: 1 };
    const job = { id: extractSourceJobId(data), data, attemptsMade: 0, opts: { attempts: 1 } } as unknown as Job;
    await expect(processor(job)).rejects.toBeInstanceOf(HostLimiterUnavailableError);
    expect(probe.fetched).toBe(0);
    expect(site.starts).toEqual([]);
    expect((await h.store.kbs.getSource(kbId, documentId))?.status).toBe('pending');
    // No worker runs yet; the queued job goes so the replicas below do not fetch it.
    await (await h.queue.getJob(extractSourceJobId(data)))?.remove();
  });
});

describe('a URL job named as another type', () => {
  it('still asks the limiter for its host, after the claim, and never fetches without a slot', async () => {
    const site = await origin(0);
    const { kbId, docs } = await addUrls([site.url('/named-text')]);
    const documentId = docs[0]!;
    const probe = limiterAwayProcessor();
    const processor = probe.processor;
    // Named `text` (a job added by hand): the claim comes first, the slot right after it.
    const data: ExtractSourceJob = { workspaceId: 'ws_hosts', kbId, documentId, run: 1, jobType: 'text' };
    const job = { id: extractSourceJobId(data), data, attemptsMade: 0, opts: { attempts: 1 } } as unknown as Job;
    await expect(processor(job)).rejects.toThrow(/internal/);
    expect(probe.asked).toBeGreaterThan(0);
    expect(probe.fetched).toBe(0);
    expect(site.starts).toEqual([]);
    // The last attempt ends the source failed, retryable, as a limiter lost during a redirect does.
    expect((await h.store.kbs.getSource(kbId, documentId))).toMatchObject({ status: 'failed', error: { code: 'internal' } });
    await (await h.queue.getJob(extractSourceJobId(data)))?.remove();
  });
});

describe('URL fetches per host, across worker replicas', { timeout: 90_000 }, () => {
  beforeAll(startReplicas);

  it('ends 8 sources of one host ready while the origin never sees more than URL_FETCH_MAX_PER_HOST at once, starts spaced', async () => {
    const site = await origin(1_200);
    const { kbId, docs } = await addUrls(Array.from({ length: 8 }, (_, i) => site.url(`/page/${i}`)));
    await expectAllReady(kbId, docs);

    expect(site.starts).toHaveLength(8);
    expect(site.maxOpen).toBeGreaterThanOrEqual(1);
    expect(site.maxOpen).toBeLessThanOrEqual(MAX_PER_HOST);
    // Starts are SPACING_MS apart in Redis's clock; what happens between the slot and the
    // request (a claim, a connect) may shorten a gap as seen here, never by half on loopback.
    const gaps = site.starts.slice(1).map((s, i) => s.at - site.starts[i]!.at);
    expect(Math.min(...gaps), JSON.stringify(gaps)).toBeGreaterThanOrEqual(SPACING_MS / 2);
    // Eight jobs at once on two replicas for two slots: some waited past the in-process bound.
    expect(handBacks()).toBeGreaterThan(0);
    expect(await h.redis.exists(h.store.keys.hostLeases(`127.0.0.1:${site.port}`))).toBe(0);
  });

  it('does not hold back sources of another host while one host is saturated', async () => {
    const stuck = await origin('until-released');
    const other = await origin(0);
    const blocked = await addUrls(Array.from({ length: 12 }, (_, i) => stuck.url(`/held/${i}`)));
    await waitFor('the saturated host to hold its two fetches', () => stuck.open === MAX_PER_HOST, { timeoutMs: 20_000 });

    const free = await addUrls([other.url('/a'), other.url('/b')]);
    await expectAllReady(free.kbId, free.docs);
    // Those ended while the first host still held every one of its requests.
    expect(stuck.starts).toHaveLength(MAX_PER_HOST);
    expect(stuck.maxOpen).toBe(MAX_PER_HOST);
    const counts = (await kbCounts(blocked.kbId)).sourceCounts;
    expect(counts.ready).toBe(0);
    expect(counts.failed).toBe(0);

    stuck.release();
    await expectAllReady(blocked.kbId, blocked.docs);
    expect(stuck.maxOpen).toBeLessThanOrEqual(MAX_PER_HOST);
  });

  it('lets a host be fetched again once the leases of a holder that died expire', async () => {
    const site = await origin(0);
    const host = `127.0.0.1:${site.port}`;
    // Both slots taken as a worker takes them, then never released, as when it is killed mid-fetch.
    const leaseMs = 3_000;
    for (const token of ['killed-1', 'killed-2']) {
      expect(await h.store.hostSlots.tryAcquire(host, token, { maxPerHost: MAX_PER_HOST, leaseMs })).toEqual({ ok: true });
    }
    const before = handBacks();
    const { kbId, docs } = await addUrls([site.url('/after-expiry')]);
    await waitFor('the job to be handed back while the dead leases hold the host', () => handBacks() > before, { timeoutMs: 10_000 });
    expect(site.starts).toEqual([]);
    expect((await h.store.kbs.getSource(kbId, docs[0]!))?.status).toBe('pending');

    await expectAllReady(kbId, docs);
    expect(site.starts.map((s) => s.path)).toEqual(['/after-expiry']);
  });

  it('takes the slot of the host a redirect leads to, giving back the first host slot meanwhile', async () => {
    const target = await origin(0);
    const first = await origin(0, target.url('/moved'));
    const targetHost = `127.0.0.1:${target.port}`;
    for (const token of ['other-1', 'other-2']) {
      await h.store.hostSlots.tryAcquire(targetHost, token, { maxPerHost: MAX_PER_HOST, leaseMs: 60_000 });
    }
    const firstHost = `127.0.0.1:${first.port}`;

    const before = handBacks();
    const { kbId, docs } = await addUrls([first.url('/start')]);
    await waitFor('the job to be handed back at the saturated redirect target', () => handBacks() > before, { timeoutMs: 10_000 });
    expect(target.starts).toEqual([]);
    expect(first.starts.map((s) => s.path)).toContain('/start');
    expect(await h.redis.zcard(h.store.keys.hostLeases(firstHost))).toBe(0);

    await h.store.hostSlots.release(targetHost, 'other-1');
    await expectAllReady(kbId, docs);
    expect(target.starts.map((s) => s.path)).toEqual(['/moved']);
    expect((await waitForDocument(h, key, kbId, docs[0]!)).text).toContain('Served /moved');
  });
});

async function kbCounts(kbId: string): Promise<{ sourceCounts: Record<string, number> }> {
  const res = await h.app.request(`/v1/knowledge-bases/${kbId}`, { headers: { 'X-API-Key': key } });
  expect(res.status).toBe(200);
  return (await res.json()) as { sourceCounts: Record<string, number> };
}
