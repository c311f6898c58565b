import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../shared/config.js';

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
