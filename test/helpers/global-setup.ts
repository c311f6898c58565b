import type { TestProject } from 'vitest/node';
import { startRedisCluster, type RedisClusterHandle } from './redis-cluster.js';
import { startRedisServer, type RedisServerHandle } from './redis-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    /** REDIS_CLUSTER_NODES of the test cluster; empty on a single Redis. */
    redisClusterNodes: string;
  }
}

let server: RedisServerHandle | undefined;
let cluster: RedisClusterHandle | undefined;

/**
 * Starts one throwaway `redis-server` (free port, temp dir, no persistence) for
 * the whole run, unless REDIS_URL points at one already; with REDIS_MODE=cluster
 * a throwaway cluster of three masters instead. Each test file then works under
 * its own key prefix and queue name, so nothing is shared.
 */
export async function setup(project: TestProject): Promise<void> {
  if (process.env.REDIS_MODE === 'cluster') {
    cluster = await startRedisCluster({ masters: 3 });
    project.provide('redisUrl', `redis://127.0.0.1:${cluster.nodes[0]!.port}`);
    project.provide('redisClusterNodes', cluster.seeds);
    return;
  }
  project.provide('redisClusterNodes', '');
  const external = process.env.REDIS_URL;
  if (external) {
    project.provide('redisUrl', external);
    return;
  }
  server = await startRedisServer();
  project.provide('redisUrl', server.url);
}

export async function teardown(): Promise<void> {
  await server?.stop();
  await cluster?.stop();
}
