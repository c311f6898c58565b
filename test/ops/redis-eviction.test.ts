import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

/** A Redis that evicts keys would drop job hashes and locks under memory pressure. */
let server: RedisServerHandle;

beforeAll(async () => {
  server = await startRedisServer({ args: ['--maxmemory', '64mb', '--maxmemory-policy', 'allkeys-lru'] });
});
afterAll(async () => {
  await server.stop();
});

async function runRole(entry: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...process.env, REDIS_URL: server.url, REDIS_KEY_PREFIX: 'evict', PORT: String(await freePort()), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, output };
}

describe('a Redis with an eviction policy', () => {
  it.each([
    ['worker', 'worker/main.ts'],
    ['API', 'api/server.ts'],
  ])('stops the %s at start-up with a line naming maxmemory-policy', async (_role, entry) => {
    const { code, output } = await runRole(entry);
    expect(code, output).toBe(1);
    expect(output).toContain('maxmemory-policy is allkeys-lru; it must be noeviction');
    expect(output).not.toMatch(/worker started|listening/i);
  });
});
