import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Config } from '../shared/config.js';
import { bullSourceQueue } from '../shared/jobs.js';
import type { Logger } from '../shared/logger.js';
import { isMain, runRole } from '../shared/process.js';
import { openIngestQueue, openRuntime } from '../shared/runtime.js';
import { createApp } from './app.js';

/** A running API: its address and an idempotent close. */
export interface RunningApi {
  port: number;
  close(): Promise<void>;
}

/** How often Node looks for connections past their timeouts, at most (its own default is 30 s). */
const TIMEOUT_CHECK_MS = 1000;

/**
 * Starts the HTTP server. Node's own timeouts bound slow clients
 * (slowloris): headers must arrive within `HTTP_HEADERS_TIMEOUT_MS` (30 s)
 * and a whole request within `HTTP_REQUEST_TIMEOUT_MS` (5 min). Node checks
 * them on an interval, here at least once a second, so a connection is closed
 * close to its deadline rather than up to 30 s past it.
 */
export async function startApi(config: Config, logger: Logger): Promise<RunningApi> {
  const runtime = await openRuntime(config, 'api', logger);
  const queue = openIngestQueue(config, 'api');
  queue.on('error', (err) => logger.warn({ err: { message: err.message } }, 'queue connection error'));
  const app = createApp({
    config,
    redis: runtime.redis,
    store: runtime.store,
    queue: bullSourceQueue(queue, config.JOB_ATTEMPTS, config.JOB_BACKOFF_MS),
    logger,
    ingestQueue: queue,
  });
  const server = await new Promise<Server>((resolve) => {
    const serverOptions = {
      headersTimeout: config.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, Math.floor(config.HTTP_HEADERS_TIMEOUT_MS / 2)),
      keepAliveTimeout: 5_000,
    };
    const s = serve({ fetch: app.fetch, port: config.PORT, hostname: config.HOST, serverOptions }, () => resolve(s as Server)) as Server;
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info({ port, host: config.HOST }, 'api listening');

  let closing: Promise<void> | undefined;
  return {
    port,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await queue.close();
        await runtime.close();
      })();
      return closing;
    },
  };
}

if (isMain(import.meta.url)) void runRole('api', (config, logger) => startApi(config, logger));
