import type { RedisClient } from '../redis/redis.js';
import { CatalogStore } from './catalog-store.js';
import { KbStore } from './kb-store.js';
import { HostSlots } from './host-slots.js';
import { ChangeFeed } from '../feed/change-feed.js';
import { SearchIndex } from '../search/search-index.js';
import type { StemmerName } from '../search/tokenize.js';
import { DEFAULT_CHANGE_RETENTION, KeySpace, type ChangeRetention } from './keys.js';
import { IdempotencyStore } from './idempotency-store.js';
import { KeyStore } from './key-store.js';
import { QuotaStore } from './quota-store.js';
import { SiteStore } from './site-store.js';
import { StageStore } from './stage-store.js';
import { withCommands } from './commands.js';
import { WebhookStore } from './webhook-store.js';
import { OutboxStore } from './outbox.js';

export interface Store {
  keys: KeySpace;
  kbs: KbStore;
  apiKeys: KeyStore;
  catalog: CatalogStore;
  /** Uploaded bytes before their source is committed. */
  stages: StageStore;
  /** Completion webhooks, their delivery history and pending event bodies. */
  webhooks: WebhookStore;
  /** The knowledge bases' outboxes of domain events, read by the relay. */
  outbox: OutboxStore;
  idempotency: IdempotencyStore;
  /** Quota overrides per workspace (the operator's). */
  quotas: QuotaStore;
  /** Fetch slots per host, shared by every worker replica. */
  hostSlots: HostSlots;
  /** Site sources: their records, discovery ends and budgets. */
  sites: SiteStore;
  /** Each knowledge base's change feed of chunks. */
  changes: ChangeFeed;
  /** Each knowledge base's search index, held in this process and kept from its change feed. */
  search: SearchIndex;
}

export interface StoreOptions {
  /** Prefix of every key; tests use a fresh one each. Default `kbi`. */
  prefix?: string;
  /** Maximum life of staged upload bytes, seconds. */
  blobTtlSeconds: number;
  /** The change feed's retention; default DEFAULT_CHANGE_RETENTION (CHANGES_RETENTION_HOURS, CHANGES_MAX_EVENTS, CHANGES_MAX_BYTES, CHANGES_WORKSPACE_MAX_BYTES). */
  changes?: Partial<ChangeRetention>;
  /** The stemmer of search terms (SEARCH_STEMMER); default `english`. */
  stemmer?: StemmerName;
  /** Bytes the search indexes of this process may take together (SEARCH_INDEX_CACHE_MB). */
  searchCacheBytes?: number;
}

/** The search settings from the configuration. */
export function searchOptions(config: { SEARCH_STEMMER: StemmerName; SEARCH_INDEX_CACHE_MB: number }): { stemmer: StemmerName; searchCacheBytes: number } {
  return { stemmer: config.SEARCH_STEMMER, searchCacheBytes: config.SEARCH_INDEX_CACHE_MB * 1024 * 1024 };
}

/** The change feed's retention from the configuration. */
export function changeRetention(config: {
  CHANGES_RETENTION_HOURS: number;
  CHANGES_MAX_EVENTS: number;
  CHANGES_MAX_BYTES: number;
  CHANGES_WORKSPACE_MAX_BYTES: number;
}): ChangeRetention {
  return {
    ...DEFAULT_CHANGE_RETENTION,
    retentionMs: config.CHANGES_RETENTION_HOURS * 3_600_000,
    maxEvents: config.CHANGES_MAX_EVENTS,
    maxBytes: config.CHANGES_MAX_BYTES,
    workspaceMaxBytes: config.CHANGES_WORKSPACE_MAX_BYTES,
  };
}

/** The Redis store both roles and the admin CLI use. */
export function createStore(redis: RedisClient, opts: StoreOptions): Store {
  const keys = new KeySpace(opts.prefix ?? 'kbi', { ...DEFAULT_CHANGE_RETENTION, ...opts.changes });
  const kbs = new KbStore(redis, keys, { blobTtlSeconds: opts.blobTtlSeconds });
  const changes = new ChangeFeed(withCommands(redis), keys);
  return {
    keys,
    kbs,
    apiKeys: new KeyStore(redis, keys),
    catalog: new CatalogStore(redis, keys),
    stages: new StageStore(redis, keys),
    webhooks: new WebhookStore(redis, keys),
    outbox: new OutboxStore(withCommands(redis), keys),
    idempotency: new IdempotencyStore(redis, keys),
    quotas: new QuotaStore(withCommands(redis), keys),
    hostSlots: new HostSlots(redis, keys),
    sites: new SiteStore(withCommands(redis), keys),
    changes,
    search: new SearchIndex(withCommands(redis), keys, changes, kbs, opts.stemmer ?? 'english', { cacheBytes: opts.searchCacheBytes }),
  };
}
