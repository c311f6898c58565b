import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { Cluster } from 'ioredis';
import { scanKeys, type RedisClient } from '../../shared/redis/redis.js';

export interface RedisServerHandle {
  url: string;
  port: number;
  dir: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Asks the kernel for a free TCP port on loopback. */
export async function freePort(): Promise<number> {
  const srv = createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const address = srv.address();
  srv.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * Starts `redis-server` from PATH on a free loopback port with its own temp
 * dir. `appendonly` turns AOF on for tests that restart Redis.
 */
export async function startRedisServer(
  opts: { appendonly?: boolean; port?: number; dir?: string; args?: string[] } = {},
): Promise<RedisServerHandle> {
  const port = opts.port ?? (await freePort());
  const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), 'kb-redis-')));
  const args = [
    '--port', String(port),
    '--bind', '127.0.0.1',
    '--dir', dir,
    '--save', '',
    '--appendonly', opts.appendonly ? 'yes' : 'no',
    '--maxmemory-policy', 'noeviction',
    ...(opts.args ?? []),
  ];
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
    const onData = (): void => {
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`cannot run redis-server (is it on PATH?): ${err.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${output}`));
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    process: child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      if (!opts.dir) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Every key under `prefix:` (SCAN on every master, never KEYS), sorted. */
export async function keysUnder(redis: RedisClient, prefix: string): Promise<string[]> {
  const found: string[] = [];
  for await (const keys of scanKeys(redis, `${prefix}:*`, 1000)) found.push(...keys);
  return found.sort();
}

/**
 * Deletes the given keys: in batches on one Redis, one key per command on a
 * cluster, where a multi-key DEL must stay in one hash slot.
 */
export async function deleteKeys(redis: RedisClient, keys: string[]): Promise<void> {
  if (redis instanceof Cluster) {
    await Promise.all(keys.map((k) => redis.del(k)));
    return;
  }
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
}
