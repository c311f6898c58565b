import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkingTag, DEFAULT_CHUNK_SETTINGS } from '../../shared/chunking/chunk-settings.js';
import { connectRedis, createRedis, scanKeys, type RedisClient } from '../../shared/redis/redis.js';
import { loadConfig } from '../../shared/runtime/config.js';
import { sourceFingerprint, type NewSource } from '../../shared/store/kb-records.js';
import { createStore, type Store } from '../../shared/store/index.js';
import { SWEEP_BATCH } from '../../shared/store/scripts/delete-scripts.js';
import { startRedisCluster, type RedisClusterHandle } from '../helpers/redis-cluster.js';
import { largeText } from '../helpers/large-text.js';

/**
 * The staged writes and the sweep of a deleted knowledge base on a Redis
 * Cluster: staged keys, pending feed entries and sweep lists share their
 * knowledge base's slot, and the reused extraction is copied across slots.
 */
describe('large writes on a Redis Cluster of three masters', () => {
  let cluster: RedisClusterHandle;
  let redis: RedisClient;
  let store: Store;
  const prefix = `lwc${Date.now().toString(36)}`;
  const WS = 'ws-cluster-large';
  const now = () => new Date().toISOString();


  async function keysOf(kbId: string): Promise<string[]> {
    const found: string[] = [];
    for await (const batch of scanKeys(redis, `${prefix}:{kb:${kbId}}:*`)) found.push(...batch.filter((k) => !/:(changes|outbox)(:info)?$/.test(k)));
    return found;
  }

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 });
    redis = createRedis(loadConfig({ REDIS_CLUSTER_NODES: cluster.seeds }), 'cli');
    await connectRedis(redis);
    store = createStore(redis, { prefix, blobTtlSeconds: 3600 });
  });
  afterAll(async () => {
    await redis?.quit().catch(() => redis.disconnect());
    await cluster?.stop();
  });

  it('finishes a large source, reuses it in another knowledge base, and sweeps a deleted one', async () => {
    const kbId = 'kb_cluster_big';
    const documentId = 'doc_cluster_big000000';
    const sha256 = 'c'.repeat(64);
    const file: NewSource = { documentId, type: 'file', content: 'big.pdf', filename: 'big.pdf', sha256, fingerprint: sourceFingerprint({ type: 'file', content: 'big.pdf', sha256 }) };
    await store.kbs.create({ workspaceId: WS, kbId, name: kbId, sources: [file], now: now() });
    await store.kbs.startSourceReport({ kbId, documentId, run: 1 }, { now: now() });
    const big = largeText(800_000, 'kappa');
    const finish = await store.kbs.finishSourceReport(
      { kbId, documentId, run: 1 },
      { status: 'ready', text: big.text, chunks: big.chunks, truncated: false, sha256, chunking: chunkingTag(DEFAULT_CHUNK_SETTINGS) },
      { now: now() },
    );
    expect(finish.result).toBe('ok');
    expect(finish.changes).toBeDefined();
    expect(await redis.get(store.keys.text(kbId, documentId))).toBe(big.text);
    expect(await redis.hlen(store.keys.sourceKeys(kbId, documentId).chunkIds)).toBe(big.chunks.length);

    await store.kbs.recordExtractedFile(WS, sha256, kbId, documentId);
    const other = 'kb_cluster_other';
    await store.kbs.create({ workspaceId: WS, kbId: other, name: other, sources: [], now: now() });
    const again: NewSource = { ...file, documentId: 'doc_cluster_again0000', content: 'again.pdf', filename: 'again.pdf' };
    const found = await store.kbs.findReusable(WS, [again]);
    await store.kbs.addSources({ workspaceId: WS, kbId: other, sources: [{ ...again, reuse: found.get(again.documentId)! }], now: now() });
    expect(await redis.hget(store.keys.source(other, again.documentId), 'status')).toBe('ready');
    expect(await redis.get(store.keys.markdown(other, again.documentId))).toBe(big.text);
    expect(await redis.hlen(store.keys.sourceKeys(other, again.documentId).chunkIds)).toBe(big.chunks.length);

    const many = 'kb_cluster_many';
    const sources: NewSource[] = Array.from({ length: SWEEP_BATCH + 20 }, (_, i) => {
      const content = `cluster text ${i}`;
      return { documentId: `doc_clmany${String(i).padStart(11, '0')}`, type: 'text', content, fingerprint: sourceFingerprint({ type: 'text', content }) };
    });
    await store.kbs.create({ workspaceId: WS, kbId: many, name: many, sources, now: now() });
    expect((await keysOf(many)).length).toBeGreaterThan(SWEEP_BATCH);
    for (const id of [kbId, many]) await store.kbs.delete(WS, id);
    expect(await keysOf(many)).toEqual([]);
    expect(await keysOf(kbId)).toEqual([]);
    expect(await keysOf(other)).not.toContainEqual(expect.stringMatching(/:staged:|:cemit:|:cseen:/));
  });
});
