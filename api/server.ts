import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Config } from '../shared/runtime/config.js';
import { bullSourceQueue } from '../shared/queue/jobs.js';
import type { Logger } from '../shared/runtime/logger.js';
import { isMain, runRole } from '../shared/runtime/process.js';
import { describeTarget } from '../shared/redis/redis.js';
import { waitForRedis } from '../shared/redis/redis-wait.js';
import { openIngestQueue, openRuntime, openWebhookQueue, type Runtime, type ServiceQueue } from '../shared/runtime/runtime.js';
import { createApp } from './app.js';
import type { AppEnv } from './context.js';
import { metricsUnreachable } from './ops/metrics.js';
import { createStartingApp } from './starting-app.js';

/** A running API: its address, when it serves, and an idempotent close. */
export interface RunningApi {
  port: number;
  /**
   * Settles once Redis has been reached and the full app serves; rejects when
   * start-up fails for another reason (an eviction policy, a wrong password)
   * or `close()` stops the wait.
   */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** How often Node looks for connections past their timeouts, at most (its own default is 30 s). */
const TIMEOUT_CHECK_MS = 1000;

/**
 * Starts the HTTP server. It listens at once; until Redis is reached (see
 * `waitForRedis`) it answers as `createStartingApp` does, then the full app
 * takes over. Node's own timeouts bound slow clients (slowloris): headers
 * must arrive within `HTTP_HEADERS_TIMEOUT_MS` (30 s) and a whole request
 * within `HTTP_REQUEST_TIMEOUT_MS` (5 min). Node checks them on an interval,
 * here at least once a second, so a connection is closed close to its
 * deadline rather than up to 30 s past it.
 */
export async function startApi(config: Config, logger: Logger): Promise<RunningApi> {
  let serving: Pick<Hono<AppEnv>, 'fetch'> = createStartingApp(logger);
  const server = await new Promise<Server>((resolve) => {
    const serverOptions = {
      headersTimeout: config.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, Math.floor(config.HTTP_HEADERS_TIMEOUT_MS / 2)),
      keepAliveTimeout: 5_000,
    };
    const s = serve(
      { fetch: (req, env) => serving.fetch(req, env), port: config.PORT, hostname: config.HOST, serverOptions },
      () => resolve(s as Server),
    ) as Server;
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info({ port, host: config.HOST }, 'api listening');
  const { METRICS_REQUIRE_AUTH: requireAuth, METRICS_TOKEN: token, BULL_BOARD_USER: user, BULL_BOARD_PASSWORD: password } = config;
  if (metricsUnreachable({ requireAuth, token, user, password })) {
    logger.warn('/metrics answers 401 to everyone: set METRICS_TOKEN (or the Bull Board credentials), or METRICS_REQUIRE_AUTH=false on a private network');
  }

  const stopping = new AbortController();
  let opened: { runtime: Runtime; queue: ServiceQueue; webhookQueue?: ServiceQueue } | undefined;
  const ready = waitForRedis(
    async (attempt) => {
      const runtime = await openRuntime(config, 'api', logger, attempt);
      const queue = await openIngestQueue(config, 'api').opened(attempt, logger);
      // The board reads the webhook queue; test events and redeliveries are queued on it.
      const webhookQueue = await openWebhookQueue(config, 'api').opened(attempt, logger);
      return { runtime, queue, webhookQueue };
    },
    { target: describeTarget(config), logger, maxDelayMs: config.REDIS_STARTUP_BACKOFF_MAX_MS, signal: stopping.signal },
  ).then(({ runtime, queue, webhookQueue }) => {
    opened = { runtime, queue, webhookQueue };
    serving = createApp({
      config,
      redis: runtime.redis,
      store: runtime.store,
      queue: bullSourceQueue(queue, config.JOB_ATTEMPTS, config.JOB_BACKOFF_MS),
      logger,
      ingestQueue: queue,
      webhookQueue,
    });
    logger.info({ port }, 'api ready');
  });
  ready.catch(() => undefined);

  let closing: Promise<void> | undefined;
  return {
    port,
    ready,
    close() {
      closing ??= (async () => {
        stopping.abort();
        await ready.catch(() => undefined);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await opened?.queue.close();
        await opened?.webhookQueue?.close();
        await opened?.runtime.close();
      })();
      return closing;
    },
  };
}

if (isMain(import.meta.url)) void runRole('api', (config, logger) => startApi(config, logger));
