import type { Worker } from 'bullmq';
import type { Config } from '../shared/runtime/config.js';
import { JobMetricsBatcher } from '../shared/queue/job-metrics.js';
import { bullSourceQueue, INGEST_QUEUE } from '../shared/queue/jobs.js';
import type { Logger } from '../shared/runtime/logger.js';
import { describeTarget } from '../shared/redis/redis.js';
import { waitForRedis, type StartupAttempt } from '../shared/redis/redis-wait.js';
import { isMain, runRole } from '../shared/runtime/process.js';
import { openIngestQueue, openRuntime } from '../shared/runtime/runtime.js';
import { withTimeout } from '../shared/runtime/timeout.js';
import { HostGate, type HostGateOptions } from './fetch/host-gate.js';
import { fetchUrl, type FetchUrlOptions } from './fetch/fetch-url.js';
import { ocrSettings } from './ocr-setup.js';
import { createProcessor, type ProcessorDeps } from './jobs/processor.js';
import { siteFetcher } from './sites/site-fetch.js';
import { openQueueWorker } from './queue-worker.js';
import { buildActiveIndexOnce, reconcile } from './reconciler.js';
import { SandboxPool, type SandboxPoolOptions } from './sandbox/sandbox-pool.js';
import { openWebhooks, type WebhookWorkerOptions } from './webhooks/worker.js';
import { privateAccess } from '../shared/net/address-policy.js';

export interface RunningWorker {
  worker: Worker;
  close(): Promise<void>;
}

export interface WorkerOptions {
  /** BullMQ lock duration; tests shorten it to see stalled-job recovery quickly. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  reconcileIntervalMs?: number;
  onOutcome?: ProcessorDeps['onOutcome'];
  /** Test seams of the URL fetcher (stub lookup and connect). */
  fetchOverrides?: Pick<FetchUrlOptions, 'lookup' | 'connect'>;
  /** Test seams of webhook delivery (a shorter retry schedule). */
  webhooks?: WebhookWorkerOptions;
  /** Test seams of the per-host gate (its in-process wait and hand-back delay). */
  hostGate?: Pick<HostGateOptions, 'maxWaitMs' | 'pollMs' | 'handBackMs'>;
  /** Stops waiting for Redis at start-up (a shutdown meanwhile). */
  signal?: AbortSignal;
  /** Test seams of the sandbox pool (a child with fault hooks). */
  sandbox?: Pick<SandboxPoolOptions, 'childModule'>;
  /** Test seam: the paths tried for the tesseract binary. */
  ocrCandidates?: string[];
}

/**
 * A fetch holds its host's slot for at most its own deadline; the margin
 * covers what happens around it (the claim before, closing the connection
 * after) so a live fetch never outlasts its lease.
 */
export const HOST_LEASE_MARGIN_MS = 5_000;

/** How long shutdown waits for a Redis write (metrics, host slots) before leaving it: Redis may be down. */
const CLOSE_WAIT_MS = 2_000;

/**
 * Starts a queue consumer. Parsing runs in sandboxed child processes, so this
 * process's event loop stays free to renew job locks. Several replicas may
 * run against one Redis. While Redis is unavailable it waits (see
 * `waitForRedis`), the sandbox children warming up meanwhile; `signal` stops
 * the wait.
 */
export async function startWorker(config: Config, logger: Logger, opts: WorkerOptions = {}): Promise<RunningWorker> {
  const ocr = await ocrSettings(config, logger, opts.ocrCandidates);
  // One warm child per concurrent job, started before the first job is taken.
  const sandbox = new SandboxPool({
    size: config.WORKER_CONCURRENCY,
    maxJobs: config.SANDBOX_MAX_JOBS,
    ...(config.SANDBOX_RECYCLE_RSS_MB !== undefined ? { recycleRssMb: config.SANDBOX_RECYCLE_RSS_MB } : {}),
    onWarning: (message) => logger.warn(message),
    onWarmUp: (warm) => {
      if (warm.pages > 0 || warm.stopped) logger.debug(warm, 'sandbox child warmed up');
    },
    ...opts.sandbox,
    limits: {
      timeoutMs: config.EXTRACT_TIMEOUT_MS,
      memoryMb: config.EXTRACT_MEMORY_MB,
      ...(config.SANDBOX_ADDRESS_SPACE_MB !== undefined ? { addressSpaceMb: config.SANDBOX_ADDRESS_SPACE_MB } : {}),
      maxTextChars: config.MAX_TEXT_CHARS,
      maxPdfPages: config.MAX_PDF_PAGES,
      maxDocxUnpackedBytes: config.DOCX_MAX_UNPACKED_MB * 1024 * 1024,
      maxHtmlDepth: config.HTML_MAX_DEPTH,
      acceptedFormats: config.ACCEPTED_FORMATS,
      ...(ocr ? { ocr } : {}),
      chunking: { maxTokens: config.CHUNK_MAX_TOKENS, overlapTokens: config.CHUNK_OVERLAP_TOKENS },
    },
  });
  const sandboxReady = sandbox.ready();
  sandboxReady.catch(() => undefined);
  let onOutcome: NonNullable<ProcessorDeps['onOutcome']> = () => undefined;

  let opened: Awaited<ReturnType<typeof openConnections>> | undefined;
  try {
    opened = await waitForRedis(
      (attempt) => openConnections(config, logger, attempt, opts, sandbox, (o) => onOutcome(o)),
      { target: describeTarget(config), logger, maxDelayMs: config.REDIS_STARTUP_BACKOFF_MAX_MS, ...(opts.signal && { signal: opts.signal }) },
    );
    await sandboxReady;
  } catch (err) {
    await sandbox.close();
    await opened?.close();
    throw err;
  }
  const { runtime, queue, sourceQueue, webhooks, ingest, hosts } = opened;
  const { worker } = ingest;
  const metrics = new JobMetricsBatcher(runtime.redis, runtime.store.keys, (err) =>
    logger.warn({ reason: err instanceof Error ? err.message : String(err) }, 'could not record job metrics'),
  );
  onOutcome = (o) => {
    opts.onOutcome?.(o);
    metrics.record(o);
  };
  worker.on('stalled', (jobId) => logger.warn({ jobId }, 'job stalled; it will be processed again'));
  worker.on('failed', (job, err) => logger.debug({ jobId: job?.id, reason: err.message }, 'job failed'));
  ingest.run();
  webhooks.run();

  // The deadline covers every attempt with its fetch, extraction and backoff.
  const processingDeadlineMs =
    config.JOB_ATTEMPTS * (config.URL_FETCH_TIMEOUT_MS + config.EXTRACT_TIMEOUT_MS) + config.JOB_BACKOFF_MS * 2 ** config.JOB_ATTEMPTS + 60_000;
  const reconcileOnce = async (): Promise<void> => {
    try {
      await buildActiveIndexOnce({ redis: runtime.redis, kbs: runtime.store.kbs, logger });
      const report = await reconcile({ redis: runtime.redis, kbs: runtime.store.kbs, sites: runtime.store.sites, queue, sourceQueue, logger, processingDeadlineMs });
      if (report.requeued + report.timedOut + report.abandoned + report.interrupted + report.sitesRequeued + report.sitesFailed > 0) logger.info(report, 'reconciled sources');
    } catch (err) {
      logger.warn({ reason: err instanceof Error ? err.message : String(err) }, 'reconcile failed');
    }
  };
  const interval = opts.reconcileIntervalMs ?? config.RECONCILE_INTERVAL_MS;
  const firstRun = setTimeout(() => void reconcileOnce(), Math.min(5_000, interval));
  const timer = setInterval(() => void reconcileOnce(), interval);
  firstRun.unref();
  timer.unref();
  logger.info({ concurrency: config.WORKER_CONCURRENCY }, 'worker started');

  // Redis may be down at shutdown, and the worker connection waits for it forever.
  const flushMetrics = (): Promise<unknown> => withTimeout(metrics.close(), CLOSE_WAIT_MS, () => undefined);
  let closing: Promise<void> | undefined;
  return {
    worker,
    close() {
      closing ??= (async () => {
        clearTimeout(firstRun);
        clearInterval(timer);
        // close() waits for active jobs and has no timeout of its own. Past
        // the grace period stop waiting: the process exits, the jobs' locks
        // lapse, and another replica picks them up as stalled.
        const finished = await withTimeout(
          Promise.all([ingest.drain(), webhooks.drain()]).then(() => true),
          config.SHUTDOWN_GRACE_MS,
          () => false,
        );
        // The children go either way, so none outlives this worker. A job cut
        // short is abandoned, not failed: its lock lapses and another replica
        // runs it, as if this process had died.
        await sandbox.close({ abandonRunning: !finished });
        await flushMetrics();
        // Fetches cut short end with this process: their host slots are free for the replica that takes the jobs over.
        await withTimeout(hosts.releaseAll(), CLOSE_WAIT_MS, () => undefined);
        if (!finished) {
          logger.warn({ graceMs: config.SHUTDOWN_GRACE_MS }, 'active jobs did not finish in time; leaving them to another replica');
          return;
        }
        await queue.close();
        // After the ingest worker: its last jobs may still be emitting events.
        await webhooks.close();
        await ingest.disconnect();
        await runtime.close();
      })();
      return closing;
    },
  };
}

/**
 * Everything of a worker that talks to Redis, opened in one start-up attempt:
 * the connections, both queues and both BullMQ Workers, ready but not yet
 * taking jobs.
 */
async function openConnections(
  config: Config,
  logger: Logger,
  attempt: StartupAttempt,
  opts: WorkerOptions,
  sandbox: SandboxPool,
  onOutcome: NonNullable<ProcessorDeps['onOutcome']>,
) {
  const runtime = await openRuntime(config, 'worker', logger, attempt);
  const queue = await openIngestQueue(config, 'worker').opened(attempt, logger);
  const sourceQueue = bullSourceQueue(queue, config.JOB_ATTEMPTS, config.JOB_BACKOFF_MS);
  const webhooks = await openWebhooks(config, runtime, logger, attempt, opts.webhooks);
  const hosts = new HostGate(runtime.store.hostSlots, {
    maxPerHost: config.URL_FETCH_MAX_PER_HOST,
    spacingMs: config.URL_FETCH_HOST_SPACING_MS,
    leaseMs: config.URL_FETCH_TIMEOUT_MS + HOST_LEASE_MARGIN_MS,
    ...opts.hostGate,
  });
  const processor = createProcessor({
    config,
    kbs: runtime.store.kbs,
    queue: sourceQueue,
    logger,
    onOutcome,
    hosts,
    fetch: (url, lease, conditional) =>
      fetchUrl(url, {
        ...(conditional && { conditional }),
        maxBytes: config.MAX_FILE_BYTES,
        timeoutMs: config.URL_FETCH_TIMEOUT_MS,
        allowPrivate: privateAccess(config),
        userAgent: config.URL_FETCH_USER_AGENT,
        hosts,
        ...(lease && { lease }),
        ...opts.fetchOverrides,
      }),
    sites: runtime.store.sites,
    quotas: runtime.store.quotas,
    siteFetch: siteFetcher(config, hosts, opts.fetchOverrides),
    extract: (bytes, hints, onProgress) => sandbox.extract(bytes, hints, undefined, onProgress),
  });
  const ingest = await openQueueWorker(config, attempt, logger, {
    queue: INGEST_QUEUE,
    processor,
    concurrency: config.WORKER_CONCURRENCY,
    lockDurationMs: opts.lockDurationMs ?? config.WORKER_LOCK_DURATION_MS,
    stalledIntervalMs: opts.stalledIntervalMs ?? config.WORKER_LOCK_DURATION_MS,
    maxStalledCount: config.WORKER_MAX_STALLED_COUNT,
  });
  return {
    runtime,
    queue,
    sourceQueue,
    webhooks,
    ingest,
    hosts,
    /** Closes what was opened, for a start-up that fails after Redis was reached. */
    async close() {
      await ingest.abort();
      await webhooks.close();
      await queue.close();
      await runtime.close();
    },
  };
}

if (isMain(import.meta.url)) void runRole('worker', (config, logger, signal) => startWorker(config, logger, { signal }));
