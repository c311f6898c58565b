import { startApi, type RunningApi } from '../api/server.js';
import type { Config } from '../shared/config.js';
import { createLogger } from '../shared/logger.js';
import { describeTarget } from '../shared/redis.js';
import { configOrExit, isMain, onShutdownSignals } from '../shared/process.js';
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
  const redis = await ensureRedis(base, logger);
  const config: Config = { ...base, redisUrl: redis.url };
  let api: RunningApi | undefined;
  let worker: RunningWorker | undefined;
  onShutdownSignals(logger, config.SHUTDOWN_GRACE_MS, async () => {
    await Promise.allSettled([api?.close(), worker?.close()]);
    await redis.stop();
  });
  try {
    api = await startApi(config, logger);
    worker = await startWorker(config, logger);
    process.stdout.write(`kb-ingest is up: http://127.0.0.1:${api.port} (docs at /docs), Redis at ${describeTarget(config)}\n`);
  } catch (err) {
    logger.fatal({ err: { message: err instanceof Error ? err.message : String(err) } }, 'failed to start');
    await redis.stop();
    process.exit(1);
  }
}

if (isMain(import.meta.url)) void main();
