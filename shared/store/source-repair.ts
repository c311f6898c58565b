import { runScript, type StoreRedis } from './commands.js';
import type { KeySpace } from './keys.js';
import { repairSourceScript } from './scripts/reconciler-scripts.js';
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
