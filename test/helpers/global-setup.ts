import type { TestProject } from 'vitest/node';
import { startRedisCluster } from './redis-cluster.js';
import { checkExternalRedis } from './redis-policy.js';
import { startRedisServer } from './redis-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    /** REDIS_CLUSTER_NODES of the test cluster; empty on a single Redis. */
    redisClusterNodes: string;
  }
}

/**
 * The shared Redis of one project's run, for the projects that need one (see vitest.config.ts):
 * a throwaway cluster of three masters for the project named `cluster`,
 * else the Redis at REDIS_URL once it has passed {@link checkExternalRedis}, else one throwaway
 * `redis-server` (free port, temp dir, no persistence). Each test file then works under its own key
 * prefix and queue name, so nothing is shared.
 *
 * Returns the teardown instead of keeping the server in module state: vitest loads this file once
 * per project, and each project stops only what it started.
 */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (project.name === 'cluster') {
    const cluster = await startRedisCluster({ masters: 3 });
    project.provide('redisUrl', `redis://127.0.0.1:${cluster.nodes[0]!.port}`);
    project.provide('redisClusterNodes', cluster.seeds);
    return () => cluster.stop();
  }
  project.provide('redisClusterNodes', '');
  const external = process.env.REDIS_URL;
  if (external) {
    await checkExternalRedis(external);
    project.provide('redisUrl', external);
    return async () => {};
  }
  const server = await startRedisServer();
  project.provide('redisUrl', server.url);
  return () => server.stop();
}
