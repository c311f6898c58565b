import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Config } from '../shared/config.js';
import { bullSourceQueue } from '../shared/jobs.js';
import type { Logger } from '../shared/logger.js';
import { isMain, runRole } from '../shared/process.js';
import { describeTarget } from '../shared/redis.js';
import { waitForRedis } from '../shared/redis-wait.js';
import { openIngestQueue, openRuntime, type Runtime, type ServiceQueue } from '../shared/runtime.js';
import { createApp } from './app.js';
import type { AppEnv } from './context.js';
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

/**
 * Starts the HTTP server. It listens at once; until Redis is reached (see
 * `waitForRedis`) it answers as `createStartingApp` does, then the full app
 * takes over. Node's own timeouts bound slow clients (slowloris): headers
 * must arrive within 30 s and a whole request within 5 min.
 */
export async function startApi(config: Config, logger: Logger): Promise<RunningApi> {
  let serving: Pick<Hono<AppEnv>, 'fetch'> = createStartingApp(logger);
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: (req, env) => serving.fetch(req, env), port: config.PORT, hostname: config.HOST }, () => resolve(s as Server)) as Server;
  });
  server.headersTimeout = 30_000;
  server.requestTimeout = 300_000;
  server.keepAliveTimeout = 5_000;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info({ port, host: config.HOST }, 'api listening');

  const stopping = new AbortController();
  let opened: { runtime: Runtime; queue: ServiceQueue } | undefined;
  const ready = waitForRedis(
    async (attempt) => {
      const runtime = await openRuntime(config, 'api', logger, attempt);
      const queue = await openIngestQueue(config, 'api').opened(attempt, logger);
      return { runtime, queue };
    },
    { target: describeTarget(config), logger, maxDelayMs: config.REDIS_STARTUP_BACKOFF_MAX_MS, signal: stopping.signal },
  ).then(({ runtime, queue }) => {
    opened = { runtime, queue };
    serving = createApp({
      config,
      redis: runtime.redis,
      store: runtime.store,
      queue: bullSourceQueue(queue, config.JOB_ATTEMPTS, config.JOB_BACKOFF_MS),
      logger,
      ingestQueue: queue,
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
        await opened?.runtime.close();
      })();
      return closing;
    },
  };
}

if (isMain(import.meta.url)) void runRole('api', (config, logger) => startApi(config, logger));
