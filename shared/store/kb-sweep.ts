import { runScript, type StoreRedis } from './commands.js';
import type { KeySpace } from './keys.js';
import { sweepKbScript } from './scripts/delete-scripts.js';

/**
 * A deletion younger than this may still be under way (its entry is written
 * before its script): the reconciler leaves it to the request that made it.
 */
export const SWEEP_GRACE_MS = 60_000;
/** Deleted knowledge bases one reconciler pass sweeps at most. */
const SWEEP_PAGE = 100;

/**
 * Marks a knowledge base about to be deleted in the deployment's index of
 * sweeps, before the delete script: a crash after it leaves the entry for
 * the reconciler, so no key of a deleted knowledge base is left for good.
 */
export async function markSweep(redis: StoreRedis, keys: KeySpace, kbId: string, nowMs = Date.now()): Promise<void> {
  await redis.zadd(keys.sweepKbs(), nowMs, kbId);
}

/**
 * Removes a deleted knowledge base's leftover keys, one bounded script a
 * batch, then its entry in the index of sweeps. Returns the batches run.
 */
export async function sweepKb(redis: StoreRedis, keys: KeySpace, kbId: string): Promise<number> {
  let batches = 0;
  for (;;) {
    const reply = await runScript(redis, keys, sweepKbScript, { kbId });
    batches += 1;
    if (reply.left === 0) break;
  }
  await redis.zrem(keys.sweepKbs(), kbId);
  return batches;
}

/**
 * The reconciler's part: sweeps the knowledge bases whose deletion began
 * SWEEP_GRACE_MS ago or more and is still listed (its request crashed, or
 * its delete script never ran: then there is nothing to sweep). Returns how
 * many it swept.
 */
export async function sweepDeleted(redis: StoreRedis, keys: KeySpace, nowMs = Date.now()): Promise<number> {
  const due = await redis.zrangebyscore(keys.sweepKbs(), '-inf', nowMs - SWEEP_GRACE_MS, 'LIMIT', 0, SWEEP_PAGE);
  for (const kbId of due) await sweepKb(redis, keys, kbId);
  return due.length;
}
