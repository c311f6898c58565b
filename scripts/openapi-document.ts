import { createApp } from '../api/app.js';
import { loadConfig } from '../shared/runtime/config.js';
import { createLogger } from '../shared/runtime/logger.js';
import { createRedis } from '../shared/redis/redis.js';
import { createStore } from '../shared/store/index.js';
import type { SourceQueue } from '../shared/queue/jobs.js';

/**
 * The served `/openapi.json`, built without Redis: the app is made on a client
 * that never connects (lazy), and only the document route is asked.
 */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const config = loadConfig({ REDIS_URL: 'redis://127.0.0.1:1', LOG_LEVEL: 'silent' });
  const redis = createRedis(config, 'api');
  const store = createStore(redis, { prefix: 'openapi', blobTtlSeconds: config.STAGING_TTL_SECONDS });
  // Nothing is enqueued while the document is generated.
  const queue = {} as SourceQueue;
  const app = createApp({ config, redis, store, queue, logger: createLogger('silent') });
  const res = await app.request('/openapi.json');
  if (res.status !== 200) throw new Error(`/openapi.json answered ${res.status}`);
  redis.disconnect();
  return (await res.json()) as Record<string, unknown>;
}

// `tsx scripts/openapi-document.ts > openapi.json` prints it.
if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${JSON.stringify(await openApiDocument(), null, 2)}\n`);
}
