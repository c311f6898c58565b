import type { RedisClient } from '../redis/redis.js';
import type { Agent, QaIssue, QaRule } from '../schemas/catalog.js';
import type { KeySpace } from './keys.js';
import { runScript, withCommands, type StoreRedis } from './commands.js';
import { importCatalogScript, type CatalogItem } from './scripts/catalog-scripts.js';

export interface CatalogImport {
  workspaceId: string;
  agents: Agent[];
  qaRules: QaRule[];
  qaIssues: QaIssue[];
}

/** Owned records: the record and the workspace it belongs to. */
export interface Owned<T> {
  workspaceId: string;
  value: T;
}

/**
 * Agents, QA rules and QA issues, loaded by operators. All catalog keys share
 * the `{catalog}` hash tag, so one import is one atomic script, also on Redis
 * Cluster.
 */
/** The outcome of an import: written, or refused because an id belongs to another workspace. */
export type CatalogImportReply = { ok: true } | { ok: false; conflict: { kind: CatalogKind; id: string } };
export type CatalogKind = 'agent' | 'qaRule' | 'qaIssue';

export class CatalogStore {
  private readonly redis: StoreRedis;

  constructor(
    redis: RedisClient,
    private readonly keys: KeySpace,
  ) {
    this.redis = withCommands(redis);
  }

  /** Writes a validated import atomically, or nothing on an ownership conflict. */
  async import(data: CatalogImport): Promise<CatalogImportReply> {
    const items: CatalogItem[] = [
      ...data.agents.map((a) => ({ kind: 'agent' as const, id: a.agentId, json: JSON.stringify(a) })),
      ...data.qaRules.map((r) => ({ kind: 'qaRule' as const, id: r.qaRuleId, json: JSON.stringify(r) })),
      ...data.qaIssues.map((q) => ({ kind: 'qaIssue' as const, id: q.qaIssueId, json: JSON.stringify(q) })),
    ];
    const reply = await runScript(this.redis, this.keys, importCatalogScript, { workspaceId: data.workspaceId, items });
    if (reply.kind === 'ok') return { ok: true };
    return { ok: false, conflict: { kind: reply.itemKind as CatalogKind, id: reply.id } };
  }

  async listAgents(workspaceId: string, page: number, size: number): Promise<{ items: Agent[]; total: number }> {
    const index = this.keys.workspaceAgents(workspaceId);
    const start = page * size;
    const [total, ids] = await Promise.all([
      this.redis.zcard(index),
      start > Number.MAX_SAFE_INTEGER - size ? Promise.resolve([]) : this.redis.zrange(index, start, start + size - 1),
    ]);
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hget(this.keys.agent(id), 'json');
    const rows = ids.length > 0 ? ((await pipe.exec()) ?? []) : [];
    const items = rows.flatMap(([, json]) => (typeof json === 'string' ? [JSON.parse(json) as Agent] : []));
    return { items, total };
  }

  async getQaIssue(qaIssueId: string): Promise<Owned<QaIssue> | null> {
    return this.getOwned<QaIssue>(this.keys.qaIssue(qaIssueId));
  }

  async getQaRule(qaRuleId: string): Promise<Owned<QaRule> | null> {
    return this.getOwned<QaRule>(this.keys.qaRule(qaRuleId));
  }

  private async getOwned<T>(key: string): Promise<Owned<T> | null> {
    const [workspaceId, json] = await this.redis.hmget(key, 'workspaceId', 'json');
    if (!workspaceId || !json) return null;
    return { workspaceId, value: JSON.parse(json) as T };
  }
}
