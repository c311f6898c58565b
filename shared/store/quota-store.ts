import type { RedisClient } from '../redis.js';
import { counterField } from '../sources/lifecycle.js';
import type { KeySpace } from './keys.js';

/** The quotas an operator can set; each a count (bytes for `storedBytes`), absent for the global default. */
export const QUOTA_NAMES = ['knowledgeBases', 'sourcesPerKnowledgeBase', 'storedBytes', 'sourcesInFlight'] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];

/** A workspace's own quotas: a number (0 for unlimited) overrides the global default; absent keeps it. */
export type QuotaOverrides = Partial<Record<QuotaName, number>>;

/** What a workspace holds now, summed over its knowledge bases. */
export interface WorkspaceHoldings {
  /** Text, Markdown, chunks and uploaded files kept for runs (the scripts' `storedBytes`). */
  storedBytes: number;
  /** Sources pending or processing. */
  sourcesInFlight: number;
}

const HOLDING_FIELDS = ['storedBytes', counterField('pending'), counterField('processing')] as const;

/**
 * Per-workspace quota overrides, set by the operator through the admin CLI.
 * One small hash per workspace, under the workspace's own hash tag.
 */
export class QuotaStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
  ) {}

  /** The workspace's overrides (empty when it has none). */
  async get(workspaceId: string): Promise<QuotaOverrides> {
    const raw = await this.redis.hgetall(this.keys.workspaceQuotas(workspaceId));
    const out: QuotaOverrides = {};
    for (const name of QUOTA_NAMES) if (raw[name] !== undefined) out[name] = Number(raw[name]);
    return out;
  }

  /** Sets the given overrides; `null` drops one, so the global default applies again. */
  async set(workspaceId: string, changes: Partial<Record<QuotaName, number | null>>): Promise<QuotaOverrides> {
    const key = this.keys.workspaceQuotas(workspaceId);
    const tx = this.redis.multi();
    for (const [name, value] of Object.entries(changes)) {
      if (value === null) tx.hdel(key, name);
      else if (value !== undefined) tx.hset(key, name, String(value));
    }
    await tx.exec();
    return this.get(workspaceId);
  }

  /**
   * Bytes the workspace's change feeds and search indexes take, about (each
   * as its knowledge base's scripts last estimated it): its knowledge bases',
   * and the feeds of deleted ones still kept for their retention.
   */
  async derivedBytes(workspaceId: string): Promise<{ changeFeeds: number; searchIndexes: number }> {
    const retained = this.keys.workspaceRetainedFeeds(workspaceId);
    const [live, gone] = await Promise.all([
      this.redis.zrange(this.keys.workspaceKbs(workspaceId), 0, -1),
      this.redis.zrangebyscore(retained, Date.now(), '+inf'),
    ]);
    // One knowledge base's keys at a time share a slot; on Redis Cluster the reads spread over the nodes.
    const num = (v: string | null) => Number(v ?? 0) || 0;
    const [feeds, indexes] = await Promise.all([
      Promise.all([...live, ...gone].map((kbId) => this.redis.hget(this.keys.changesInfo(kbId), 'bytes'))),
      Promise.all(live.map((kbId) => this.redis.hget(this.keys.searchState(kbId), 'bytes'))),
    ]);
    return { changeFeeds: feeds.reduce((a, v) => a + num(v), 0), searchIndexes: indexes.reduce((a, v) => a + num(v), 0) };
  }

  /** The workspace's number of knowledge bases. */
  async knowledgeBaseCount(workspaceId: string): Promise<number> {
    return this.redis.zcard(this.keys.workspaceKbs(workspaceId));
  }

  /**
   * Bytes stored and sources in flight, from each knowledge base's counters:
   * one read per knowledge base (each on its own slot), sent together.
   */
  async holdings(workspaceId: string): Promise<WorkspaceHoldings> {
    const kbIds = await this.redis.zrange(this.keys.workspaceKbs(workspaceId), 0, -1);
    const rows = await Promise.all(kbIds.map((kbId) => this.redis.hmget(this.keys.kb(kbId), ...HOLDING_FIELDS)));
    const out: WorkspaceHoldings = { storedBytes: 0, sourcesInFlight: 0 };
    for (const [bytes, pending, processing] of rows) {
      out.storedBytes += Math.max(0, Number(bytes ?? 0));
      out.sourcesInFlight += Number(pending ?? 0) + Number(processing ?? 0);
    }
    return out;
  }
}
