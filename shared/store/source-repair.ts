import { runScript, type StoreRedis } from './commands.js';
import type { KeySpace } from './keys.js';
import { recountKbScript, repairSourceScript } from './scripts/reconciler-scripts.js';
import type { Reply } from './scripts/script.js';

/** What a repair did: nothing (`active`, `gone`, `unlisted`), recounted (`mended`), or ended or re-ran the source. */
export type RepairResult = Reply<typeof repairSourceScript.replies>;

/**
 * Mends a source the active index lists although it has ended (a write
 * applied in part; see repairSource.lua): recounts the knowledge base, and
 * puts a ready source whose extraction is incomplete back to pending under a
 * new run, or fails it when its uploaded bytes are gone.
 */
export async function repairSource(redis: StoreRedis, keys: KeySpace, kbId: string, documentId: string, now: string): Promise<RepairResult> {
  return runScript(redis, keys, repairSourceScript, { kbId, documentId, now });
}

/** What a recount did: nothing (`consistent`, `gone`), nothing yet (`over_budget`), or counted again. */
export type RecountResult = Reply<typeof recountKbScript.replies>;

/**
 * Counts a knowledge base's sources again when its counters do not add up to
 * its list of sources (a torn commit; see recountKb.lua). Reads every source
 * record only then, and only when there are at most `maxSources`.
 */
export async function recountKb(redis: StoreRedis, keys: KeySpace, kbId: string, maxSources: number, nowMs: number): Promise<RecountResult> {
  return runScript(redis, keys, recountKbScript, { kbId, maxSources, nowMs });
}
