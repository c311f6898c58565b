import type { StoreRedis } from '../store/commands.js';
import type { KeySpace } from '../store/keys.js';

/** Terms of an earlier version's index removed per command. */
export const LEGACY_BATCH = 200;

/**
 * Removes the search index an earlier version kept in Redis beside a
 * knowledge base's chunks (per-term sorted sets listed in a set, a hash of
 * indexed chunks and a state hash), whatever state it was left in: a slice
 * of terms per command, each set unlinked (freed off Redis's main thread),
 * so no command grows with the index. Nothing when there is none.
 */
export async function dropLegacyIndex(redis: StoreRedis, keys: KeySpace, kbId: string): Promise<void> {
  const state = keys.searchState(kbId);
  const docs = keys.searchDocs(kbId);
  const terms = keys.searchTerms(kbId);
  if ((await redis.exists(state, docs, terms)) === 0) return;
  const prefix = keys.searchPostingsPrefix(kbId);
  for (;;) {
    const batch = await redis.srandmember(terms, LEGACY_BATCH);
    if (batch.length === 0) break;
    await redis.pipeline().unlink(...batch.map((term) => prefix + term)).srem(terms, ...batch).exec();
  }
  await redis.unlink(state, docs, terms);
}
