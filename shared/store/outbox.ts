import { randomUUID } from 'node:crypto';
import type { KeySpace } from './keys.js';
import { runScript, type StoreRedis } from './commands.js';
import { ackOutboxScript, unmarkOutboxScript } from './scripts/outbox-scripts.js';

/** How long one relay holds a knowledge base's outbox at most, ms (a relay that dies frees it then). */
const RELAY_LEASE_MS = 30_000;

/** One event as a script appended it. */
export interface OutboxEntry {
  /** The stream id. */
  id: string;
  type: string;
  /** What the event id is derived from (eventId's parts, joined with '/'). */
  key: string;
  workspaceId: string;
  createdAt: string;
  /** The data as JSON (see the outbox Lua include for its shape per type). */
  data: string;
}

/**
 * The store's side of the outbox: the index of knowledge bases whose outbox
 * may hold events, a page of one outbox, and the deletion of relayed
 * entries. The relay (worker/webhooks/relay.ts) is its only reader.
 */
export class OutboxStore {
  constructor(
    private readonly redis: StoreRedis,
    private readonly keys: KeySpace,
  ) {}

  /**
   * Bumps `kbId` in the index before a script that may append to its outbox
   * (another slot, so not in the script): a crash after it leaves an entry
   * the relay finds empty, never events the relay cannot find.
   */
  async mark(kbId: string): Promise<void> {
    await this.redis.zincrby(this.keys.outboxKbs(), 1, kbId);
  }

  /** A page of the index: knowledge bases whose outbox may hold events, with the score read. */
  async marked(count: number): Promise<{ kbId: string; score: number }[]> {
    const flat = await this.redis.zrange(this.keys.outboxKbs(), 0, count - 1, 'WITHSCORES');
    const out: { kbId: string; score: number }[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ kbId: flat[i]!, score: Number(flat[i + 1]) });
    return out;
  }

  /** The oldest `count` entries of a knowledge base's outbox. */
  async read(kbId: string, count: number): Promise<OutboxEntry[]> {
    const rows = (await this.redis.xrange(this.keys.outbox(kbId), '-', '+', 'COUNT', count)) as [string, string[]][];
    return rows.map(([id, flat]) => {
      const f: Record<string, string> = {};
      for (let i = 0; i + 1 < flat.length; i += 2) f[flat[i]!] = flat[i + 1]!;
      return { id, type: f.t ?? '', key: f.k ?? '', workspaceId: f.w ?? '', createdAt: f.at ?? '', data: f.d ?? '{}' };
    });
  }

  /** Deletes relayed entries and takes their bytes off the count; an entry deleted already (by another relay) counts once. */
  async ack(kbId: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return (await runScript(this.redis, this.keys, ackOutboxScript, { kbId, ids })).deleted;
  }

  /**
   * Takes the relay of one knowledge base for `ms`, so replicas do not all
   * relay the same outbox at once (they could: ids make it harmless, only wasteful).
   * The token to release it with, or undefined when another holds it.
   */
  async lease(kbId: string, ms = RELAY_LEASE_MS): Promise<string | undefined> {
    const token = randomUUID();
    return (await this.redis.set(this.keys.outboxLease(kbId), token, 'PX', ms, 'NX')) === 'OK' ? token : undefined;
  }

  /** Gives the lease back if it is still `token`'s. */
  async release(kbId: string, token: string): Promise<void> {
    const key = this.keys.outboxLease(kbId);
    if ((await this.redis.get(key)) === token) await this.redis.del(key);
  }

  /** Drops `kbId` from the index unless a script was marked since the score was read. */
  async unmark(kbId: string, score: number): Promise<boolean> {
    return (await runScript(this.redis, this.keys, unmarkOutboxScript, { kbId, score })).kind === 'ok';
  }

  /** Bytes the outbox holds and the entries its bound dropped unrelayed. */
  async info(kbId: string): Promise<{ bytes: number; dropped: number; length: number }> {
    const [[bytes, dropped], length] = await Promise.all([this.redis.hmget(this.keys.outboxInfo(kbId), 'bytes', 'dropped'), this.redis.xlen(this.keys.outbox(kbId))]);
    return { bytes: Number(bytes ?? 0) || 0, dropped: Number(dropped ?? 0) || 0, length };
  }
}
