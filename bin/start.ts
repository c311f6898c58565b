import { startApi, type RunningApi } from '../api/server.js';
import type { Config } from '../shared/runtime/config.js';
import { createLogger } from '../shared/runtime/logger.js';
import { describeTarget } from '../shared/redis/redis.js';
import { configOrExit, isMain, onFatalErrors, onShutdownSignals } from '../shared/runtime/process.js';
import { startWorker, type RunningWorker } from '../worker/main.js';
import { ensureRedis } from './local-redis.js';

/**
 * `npm start`: the API and a worker in one process. With REDIS_CLUSTER_NODES it
 * uses that cluster. Without it or REDIS_URL it uses
 * the Redis on 127.0.0.1:6379, or starts a private one (data in ./data/redis).
 */
async function main(): Promise<void> {
  const base = configOrExit();
  const logger = createLogger(base.LOG_LEVEL, { role: 'all' });
  onFatalErrors(logger);
  const redis = await ensureRedis(base, logger);
  const config: Config = { ...base, redisUrl: redis.url };
  let api: RunningApi | undefined;
  let worker: RunningWorker | undefined;
  const stopping = new AbortController();
  onShutdownSignals(logger, config.SHUTDOWN_GRACE_MS, async () => {
    stopping.abort();
    await Promise.allSettled([api?.close(), worker?.close()]);
    await redis.stop();
  });
  try {
    // The API listens at once and both wait for Redis side by side.
    api = await startApi(config, logger);
    worker = await startWorker(config, logger, { signal: stopping.signal });
    await api.ready;
    process.stdout.write(`kb-ingest is up: http://127.0.0.1:${api.port} (docs at /docs), Redis at ${describeTarget(config)}\n`);
  } catch (err) {
    // A shutdown during start-up exits through its own handler.
    if (stopping.signal.aborted) return;
    logger.fatal({ reason: err instanceof Error ? err.message : String(err) }, 'failed to start');
    await api?.close().catch(() => undefined);
    await redis.stop();
    process.exit(1);
  }
}

if (isMain(import.meta.url)) void main();
