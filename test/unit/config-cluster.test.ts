import { describe, expect, it } from 'vitest';
import type { Cluster } from 'ioredis';
import { ConfigError, loadConfig } from '../../shared/runtime/config.js';
import { createRedis } from '../../shared/redis/redis.js';

describe('REDIS_CLUSTER_NODES', () => {
  it('parses comma-separated host:port seeds, spaces allowed', () => {
    const c = loadConfig({ REDIS_CLUSTER_NODES: 'redis-1:6379, 10.0.0.2:7000,redis-3:6379' });
    expect(c.redisClusterNodes).toEqual([
      { host: 'redis-1', port: 6379 },
      { host: '10.0.0.2', port: 7000 },
      { host: 'redis-3', port: 6379 },
    ]);
  });

  it('is absent without the variable, so REDIS_URL is used', () => {
    expect(loadConfig({ REDIS_URL: 'redis://r:6379' }).redisClusterNodes).toBeUndefined();
  });

  it.each(['redis-1', 'redis-1:', 'redis://redis-1:6379', 'a:6379,,b:6379', 'a:70000'])('refuses %j with one line naming the variable', (value) => {
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: value })).toThrow(ConfigError);
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: value })).toThrow(/REDIS_CLUSTER_NODES: /);
  });
});

describe('cluster mode credentials and TLS', () => {
  const nodeOptions = (env: Record<string, string>) => {
    const cluster = createRedis(loadConfig({ REDIS_CLUSTER_NODES: 'redis-1:6379', ...env }), 'worker') as Cluster;
    const options = cluster.options.redisOptions ?? {};
    cluster.disconnect();
    return options;
  };

  it("connects every node with REDIS_URL's user name and password, as single-Redis mode does", () => {
    expect(nodeOptions({ REDIS_URL: 'redis://ingest:s%40cret@ignored:6379' })).toMatchObject({ username: 'ingest', password: 's@cret' });
    expect(nodeOptions({ REDIS_URL: 'redis://:only-pass@ignored:6379' })).toMatchObject({ password: 'only-pass' });
    expect(nodeOptions({ REDIS_URL: 'redis://:only-pass@ignored:6379' })).not.toHaveProperty('username');
  });

  it('uses TLS on every node when REDIS_URL is rediss://, and neither without REDIS_URL', () => {
    expect(nodeOptions({ REDIS_URL: 'rediss://:p@ignored:6380' })).toMatchObject({ tls: {}, password: 'p' });
    const plain = nodeOptions({});
    expect(plain).not.toHaveProperty('tls');
    expect(plain).not.toHaveProperty('password');
  });
});
