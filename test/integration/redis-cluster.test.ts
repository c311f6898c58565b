import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import { connectRedis, createRedis, masters, scanKeys, type RedisClient } from '../../shared/redis.js';
import { assertNoEviction } from '../../shared/runtime.js';
import { UploadGate } from '../../api/upload-gate.js';
import { startRedisCluster, type RedisClusterHandle } from '../helpers/redis-cluster.js';
import { deleteKeys } from '../helpers/redis-server.js';

/** Checks that need a cluster of their own: they change one master's settings. */
describe('on a Redis Cluster of three masters', () => {
  let cluster: RedisClusterHandle;
  let redis: RedisClient;
  const prefix = `c${Date.now().toString(36)}`;

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 });
    redis = createRedis(loadConfig({ REDIS_CLUSTER_NODES: cluster.seeds }), 'cli');
    await connectRedis(redis);
  });
  afterAll(async () => {
    await redis?.quit().catch(() => redis.disconnect());
    await cluster?.stop();
  });

  it('connects to every master through the seed nodes', () => {
    expect(masters(redis).map((n) => n.options.port).sort()).toEqual(cluster.nodes.map((n) => n.port).sort());
  });

  it('finds keys on every master when scanning', async () => {
    const keys = Array.from({ length: 30 }, (_, i) => `${prefix}:{kb:k${i}}:meta`);
    await Promise.all(keys.map((k) => redis.set(k, '1')));
    const slotsOwners = new Set<number | undefined>();
    for (const node of masters(redis)) if ((await node.dbsize()) > 0) slotsOwners.add(node.options.port);
    expect(slotsOwners.size, 'the keys spread over more than one master').toBeGreaterThan(1);
    const found: string[] = [];
    for await (const page of scanKeys(redis, `${prefix}:*`)) found.push(...page);
    expect(found.sort()).toEqual([...keys].sort());
    await deleteKeys(redis, keys);
  });

  it('refuses to start when any one master evicts keys', async () => {
    const last = masters(redis).at(-1)!;
    await last.config('SET', 'maxmemory-policy', 'allkeys-lru');
    try {
      await expect(assertNoEviction(redis, createLogger('silent'))).rejects.toThrow(/maxmemory-policy is allkeys-lru/);
    } finally {
      await last.config('SET', 'maxmemory-policy', 'noeviction');
    }
    await expect(assertNoEviction(redis, createLogger('silent'))).resolves.toBeUndefined();
  });

  it('pauses uploads when the fullest master is above the high-water mark', async () => {
    const gate = new UploadGate(redis, { maxUploads: 10, maxUploadsPerKey: 10, redisHighWaterPercent: 90 });
    (await gate.admit('k1'))();
    const last = masters(redis).at(-1)!;
    const used = Number(/^used_memory:(\d+)/m.exec(await last.info('memory'))![1]);
    // Only this master is near its limit; the others have none.
    await last.config('SET', 'maxmemory', String(Math.round(used / 0.95)));
    try {
      const fresh = new UploadGate(redis, { maxUploads: 10, maxUploadsPerKey: 10, redisHighWaterPercent: 90 });
      await expect(fresh.admit('k1')).rejects.toThrow(/nearly full/);
    } finally {
      await last.config('SET', 'maxmemory', '0');
    }
  });
});
