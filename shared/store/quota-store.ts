import { counterField } from '../sources/lifecycle.js';
import { runScript, type StoreRedis } from './commands.js';
import type { KeySpace } from './keys.js';
import { reserveQuotaScript, settleQuotaScript, type ReserveQuotaInput } from './scripts/quota-scripts.js';

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

/** A knowledge-base index entry younger than this may be one whose commit is under way. */
const DANGLING_AFTER_MS = 60_000;

/**
 * Per-workspace quota overrides, set by the operator through the admin CLI
 * (one small hash per workspace, under the workspace's own hash tag), what a
 * workspace holds, and the reservations of requests on their way to a
 * commit (see reserveQuota.lua).
 */
export class QuotaStore {
  constructor(
    private readonly redis: StoreRedis,
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
   * Bytes the workspace's change feeds, search indexes and outboxes take,
   * about (each as its knowledge base's scripts last estimated it): its
   * knowledge bases', and the feeds of deleted ones still kept for their
   * retention. An outbox holds only events not yet relayed: about 0 while the
   * relay keeps up.
   */
  async derivedBytes(workspaceId: string): Promise<{ changeFeeds: number; searchIndexes: number; outboxes: number }> {
    const retained = this.keys.workspaceRetainedFeeds(workspaceId);
    const [live, gone] = await Promise.all([
      this.redis.zrange(this.keys.workspaceKbs(workspaceId), 0, -1),
      this.redis.zrangebyscore(retained, Date.now(), '+inf'),
    ]);
    // One knowledge base's keys at a time share a slot; on Redis Cluster the reads spread over the nodes.
    const num = (v: string | null) => Number(v ?? 0) || 0;
    const [feeds, indexes, outboxes] = await Promise.all([
      Promise.all([...live, ...gone].map((kbId) => this.redis.hget(this.keys.changesInfo(kbId), 'bytes'))),
      Promise.all(live.map((kbId) => this.redis.hget(this.keys.searchState(kbId), 'bytes'))),
      Promise.all(live.map((kbId) => this.redis.hget(this.keys.outboxInfo(kbId), 'bytes'))),
    ]);
    const sum = (values: (string | null)[]) => values.reduce((a, v) => a + num(v), 0);
    return { changeFeeds: sum(feeds), searchIndexes: sum(indexes), outboxes: sum(outboxes) };
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

  /**
   * Takes out of the workspace's index the knowledge bases entered more than
   * a minute ago that do not exist: a process that died between the index
   * entry and the commit left them, and the quota counts the index. Read
   * only when the quota refuses, so at most one read per knowledge base the
   * quota allows. Returns how many it dropped.
   */
  async dropDanglingKbs(workspaceId: string): Promise<number> {
    const index = this.keys.workspaceKbs(workspaceId);
    const old = await this.redis.zrangebyscore(index, '-inf', Date.now() - DANGLING_AFTER_MS);
    const exists = await Promise.all(old.map((kbId) => this.redis.exists(this.keys.kb(kbId))));
    const dangling = old.filter((_, i) => exists[i] === 0);
    if (dangling.length > 0) await this.redis.zrem(index, ...dangling);
    return dangling.length;
  }

  /** The epoch of the workspace's quota holds, read before {@link holdings} for {@link reserve}. */
  async holdsEpoch(workspaceId: string): Promise<number> {
    return Number((await this.redis.hget(this.keys.quotaHolds(workspaceId), 'epoch')) ?? 0);
  }

  /** Checks the stored-bytes and in-flight quotas against what is held and reserved, and reserves `adding` (reserveQuota.lua). */
  async reserve(input: ReserveQuotaInput) {
    return runScript(this.redis, this.keys, reserveQuotaScript, input);
  }

  /** Ends a reservation: `settle` after a commit (or one that may have happened), else given back. */
  async settle(workspaceId: string, id: string, settle: boolean, keepMs: number): Promise<void> {
    await runScript(this.redis, this.keys, settleQuotaScript, { workspaceId, id, settle, keepMs });
  }
}
