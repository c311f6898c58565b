import type { Queue } from 'bullmq';
import type { RedisClient } from '../shared/redis/redis.js';
import type { Config } from '../shared/runtime/config.js';
import type { SourceQueue } from '../shared/queue/jobs.js';
import type { Logger } from '../shared/runtime/logger.js';
import type { Store } from '../shared/store/index.js';

/** Everything the API needs, passed in so tests build an app on a fresh prefix. */
export interface AppDeps {
  config: Config;
  redis: RedisClient;
  store: Store;
  queue: SourceQueue;
  logger: Logger;
  /** The BullMQ queue itself, for queue-depth metrics and Bull Board. */
  ingestQueue?: Queue;
  /** The webhook delivery queue, for Bull Board. */
  webhookQueue?: Queue;
}
