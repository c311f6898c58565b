import type { Queue } from 'bullmq';
import type { RedisClient } from '../shared/redis/redis.js';
import type { Config } from '../shared/runtime/config.js';
import type { SourceQueue } from '../shared/queue/jobs.js';
import type { Logger } from '../shared/runtime/logger.js';
import type { Store } from '../shared/store/index.js';
import { KbViewCache } from '../shared/verbs/kb-view-cache.js';
import type { KbDeps } from '../shared/verbs/knowledge-bases.js';

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

/** What the knowledge-base verbs need, built once per app so every route shares one cache of knowledge-base views. */
export function kbDepsOf(deps: AppDeps): KbDeps {
  return {
    kbs: deps.store.kbs,
    sites: deps.store.sites,
    queue: deps.queue,
    logger: deps.logger,
    chunkDefaults: { maxTokens: deps.config.CHUNK_MAX_TOKENS, overlapTokens: deps.config.CHUNK_OVERLAP_TOKENS },
    refreshCooldownMs: deps.config.REFRESH_COOLDOWN_SECONDS * 1000,
    views: new KbViewCache(deps.config.KB_VIEW_CACHE_MB * 1024 * 1024, deps.config.KB_VIEW_VERIFY),
  };
}
