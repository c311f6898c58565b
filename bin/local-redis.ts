import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import { resolve } from 'node:path';
import type { Config } from '../shared/runtime/config.js';
import type { Logger } from '../shared/runtime/logger.js';

export interface LocalRedis {
  url: string;
  stop(): Promise<void>;
}

/** Does something answer PING on host:port within a second? */
async function answersPing(host: string, port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = createConnection({ host, port });
    const finish = (ok: boolean): void => {
      socket.destroy();
      done(ok);
    };
    socket.setTimeout(1_000, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => finish(d.toString().startsWith('+PONG') || d.toString().startsWith('-NOAUTH')));
  });
}

/**
 * The Redis `npm start` uses: the cluster of REDIS_CLUSTER_NODES when set; REDIS_URL when set; else 127.0.0.1:6379 when it
 * answers; else a private `redis-server` from PATH on that port, bound to
 * loopback, with AOF on under ./data/redis, stopped on exit. With none of these it exits with one line saying what to do.
 */
export async function ensureRedis(config: Config, logger: Logger): Promise<LocalRedis> {
  const none = { stop: async () => undefined };
  if (config.redisClusterNodes) return { url: config.redisUrl, ...none };
  if (config.REDIS_URL) return { url: config.REDIS_URL, ...none };
  if (await answersPing('127.0.0.1', 6379)) return { url: 'redis://127.0.0.1:6379', ...none };
  if (spawnSync('redis-server', ['--version']).error) {
    process.stderr.write(
      'kb-ingest: no Redis answers on 127.0.0.1:6379 and redis-server is not on PATH; install Redis (for example `apt-get install redis-server`) or set REDIS_URL\n',
    );
    process.exit(1);
  }
  const dir = resolve('data/redis');
  mkdirSync(dir, { recursive: true });
  // The usual port, so the admin CLI and other tools find it without REDIS_URL.
  const port = 6379;
  const child: ChildProcess = spawn(
    'redis-server',
    ['--bind', '127.0.0.1', '--port', String(port), '--dir', dir, '--appendonly', 'yes', '--save', '', '--maxmemory-policy', 'noeviction'],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const deadline = Date.now() + 10_000;
  while (!(await answersPing('127.0.0.1', port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      process.stderr.write(`kb-ingest: the private redis-server did not start (data dir ${dir})\n`);
      process.exit(1);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  logger.info({ port, dir }, 'started a private redis-server');
  const stopChild = (): void => {
    if (child.exitCode === null) child.kill('SIGTERM');
  };
  process.once('exit', stopChild);
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
