import type { Redis } from 'ioredis';
import type { Agent, QaIssue, QaRule } from '../schemas/catalog.js';
import type { KeySpace } from './keys.js';
import { Script } from './scripts.js';

/**
 * KEYS: seq, agents index, then the key of every agent, rule and issue, in that
 * order. ARGV[1]: JSON {workspaceId, items: [{kind, id, json}]}. Refuses the
 * whole import if an id already belongs to another workspace; otherwise writes
 * everything, keeping an existing agent's place in the creation order.
 */
const IMPORT = `
local p = cjson.decode(ARGV[1])
for i, item in ipairs(p.items) do
  local owner = redis.call('HGET', KEYS[2 + i], 'workspaceId')
  if owner and owner ~= p.workspaceId then return 'conflict:' .. item.kind .. ':' .. item.id end
end
for i, item in ipairs(p.items) do
  redis.call('HSET', KEYS[2 + i], 'workspaceId', p.workspaceId, 'json', item.json)
  if item.kind == 'agent' and not redis.call('ZSCORE', KEYS[2], item.id) then
    redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[1]), item.id)
  end
end
return 'ok'
`;
const importScript = new Script(IMPORT);

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
export class CatalogStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: KeySpace,
  ) {}

  /** Writes a validated import atomically; returns an error string on an ownership conflict. */
  async import(data: CatalogImport): Promise<'ok' | string> {
    const k = this.keys;
    const items = [
      ...data.agents.map((a) => ({ kind: 'agent', id: a.agentId, key: k.agent(a.agentId), json: JSON.stringify(a) })),
      ...data.qaRules.map((r) => ({ kind: 'qaRule', id: r.qaRuleId, key: k.qaRule(r.qaRuleId), json: JSON.stringify(r) })),
      ...data.qaIssues.map((q) => ({ kind: 'qaIssue', id: q.qaIssueId, key: k.qaIssue(q.qaIssueId), json: JSON.stringify(q) })),
    ];
    const keys = [k.catalogSeq(), k.workspaceAgents(data.workspaceId), ...items.map((i) => i.key)];
    const payload = { workspaceId: data.workspaceId, items: items.map(({ kind, id, json }) => ({ kind, id, json })) };
    return String(await importScript.run(this.redis, keys, [JSON.stringify(payload)]));
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
