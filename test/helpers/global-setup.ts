import type { TestProject } from 'vitest/node';
import { startRedisServer, type RedisServerHandle } from './redis-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

let server: RedisServerHandle | undefined;

/**
 * Starts one throwaway `redis-server` (free port, temp dir, no persistence) for
 * the whole run, unless REDIS_URL points at one already. Each test file then
 * works under its own key prefix and queue name, so nothing is shared.
 */
export async function setup(project: TestProject): Promise<void> {
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
}
