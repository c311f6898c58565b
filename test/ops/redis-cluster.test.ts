import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/runtime/config.js';
import { createLogger } from '../../shared/runtime/logger.js';
import { connectRedis, createRedis, masters, scanKeys, type RedisClient } from '../../shared/redis/redis.js';
import { assertNoEviction } from '../../shared/runtime/runtime.js';
import { UploadGate } from '../../api/http/upload-gate.js';
import { startRedisCluster, type RedisClusterHandle } from '../helpers/redis-cluster.js';
import { deleteKeys } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs the admin CLI and resolves with its exit code and output. */
function admin(env: Record<string, string>, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args], { cwd: root, env: { ...process.env, ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

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

  it('runs npm start and the admin CLI on the cluster: a key, a knowledge base, a ready source', async () => {
    const env = { REDIS_CLUSTER_NODES: cluster.seeds, REDIS_KEY_PREFIX: `${prefix}s`, REDIS_URL: '' };
    const made = await admin(env, ['create-key', '--workspace', 'ws_cluster']);
    expect(made.code, made.stderr).toBe(0);
    const apiKey = made.stdout.trim().split('\n').at(-1)!;
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/start.ts'], {
      cwd: root,
      env: { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', () => output.includes('kb-ingest is up') && resolve());
        child.once('exit', (code) => reject(new Error(`start exited with ${code}:\n${output}`)));
      });
      expect(output).toContain(`Redis at cluster ${cluster.seeds}`);
      expect(output).not.toContain('private redis-server');
      const base = /http:\/\/127\.0\.0\.1:(\d+)/.exec(output)![0];
      const form = new FormData();
      form.set('knowledge_base_name', 'on a cluster');
      form.set('knowledge_base_texts', JSON.stringify(['Text stored on a cluster.']));
      const created = await fetch(`${base}/v1/knowledge-bases`, { method: 'POST', body: form, headers: { 'X-API-Key': apiKey } });
      expect(created.status).toBe(201);
      const { kbId } = (await created.json()) as { kbId: string };
      await waitFor('the source to be ready', async () => {
        const res = await fetch(`${base}/v1/knowledge-bases/${kbId}`, { headers: { 'X-API-Key': apiKey } });
        const body = (await res.json()) as { files: { status: string }[] };
        return body.files[0]?.status === 'ready';
      });
      const listed = await admin(env, ['list-keys', '--workspace', 'ws_cluster']);
      expect(listed.stdout).toContain('"revoked":false');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
