import type { KeySpace } from './keys.js';
import type { StoreRedis } from './commands.js';
import { runScript } from './commands.js';
import { unmarkActiveScript } from './scripts/reconciler-scripts.js';
import { isActiveStatus } from '../sources/lifecycle.js';
import type { StoredSource } from './kb-records.js';

/**
 * The index of active sources the reconciler walks: per knowledge base, its
 * pending and processing sources (kept by the scripts that move a source),
 * and across knowledge bases, those that may have any.
 */
export class ActiveIndex {
  constructor(
    private readonly redis: StoreRedis,
    private readonly keys: KeySpace,
  ) {}

  /**
   * Puts the knowledge base in the index of those with active sources. It is
   * written before the script that adds the sources (another hash slot), so a
   * crash in between leaves an entry the reconciler drops, never a source
   * the reconciler cannot find.
   */
  async markActive(kbId: string, now: string): Promise<void> {
    await this.redis.zadd(this.keys.activeKbs(), Date.parse(now), kbId);
  }

  /**
   * Runs `write` (a script that may leave a source active) after
   * {@link markActive}, waiting once: on one connection both are sent at
   * once, and Redis runs them in the order sent; across a cluster's nodes
   * the mark is awaited first, as nothing orders them there.
   */
  async markedWrite<T>(kbId: string, now: string, write: () => Promise<T>): Promise<T> {
    if ((this.redis as { isCluster?: boolean }).isCluster) {
      await this.markActive(kbId, now);
      return write();
    }
    const [, written] = await Promise.all([this.markActive(kbId, now), write()]);
    return written;
  }

  /** Active sources of one knowledge base with the time (ms) each entered its state. */
  async activeSources(kbId: string): Promise<{ documentId: string; sinceMs: number }[]> {
    const flat = await this.redis.zrange(this.keys.active(kbId), 0, -1, 'WITHSCORES');
    const out: { documentId: string; sinceMs: number }[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ documentId: flat[i]!, sinceMs: Number(flat[i + 1]) });
    return out;
  }

  /** A page of the index of knowledge bases that may have active sources, with when each was marked. */
  async activeKbs(cursor: number, count: number): Promise<{ kbId: string; markedMs: number }[]> {
    const flat = await this.redis.zrange(this.keys.activeKbs(), cursor, cursor + count - 1, 'WITHSCORES');
    const out: { kbId: string; markedMs: number }[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ kbId: flat[i]!, markedMs: Number(flat[i + 1]) });
    return out;
  }

  /**
   * Adds a knowledge base's active sources to the index (for data written
   * before the index existed). True when it has any.
   */
  async indexActive(kbId: string, sources: StoredSource[]): Promise<boolean> {
    const active = sources.filter((s) => isActiveStatus(s.status));
    if (active.length === 0) return false;
    const pipe = this.redis.pipeline();
    for (const s of active) pipe.zadd(this.keys.active(kbId), 'NX', Date.parse(s.updatedAt), s.documentId);
    await pipe.exec();
    // The index has its own hash slot, so it is not part of the pipeline above.
    await this.redis.zadd(this.keys.activeKbs(), Date.now(), kbId);
    return true;
  }

  /** Drops a knowledge base from the active index unless it was marked again after `markedMs`. */
  async unmarkActive(kbId: string, markedMs: number): Promise<void> {
    await runScript(this.redis, this.keys, unmarkActiveScript, { kbId, markedMs });
  }
}
