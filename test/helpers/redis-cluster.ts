import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServerHandle } from './redis-server.js';
import { waitFor } from './wait.js';

export interface ClusterNode {
  host: string;
  port: number;
}

export interface RedisClusterHandle {
  /** Every node, masters first, as REDIS_CLUSTER_NODES takes them. */
  seeds: string;
  nodes: ClusterNode[];
  servers: RedisServerHandle[];
  /** The current master and replica ports, from CLUSTER SLOTS. */
  topology(): Promise<{ masters: number[]; replicasOf: Map<number, number[]> }>;
  stop(): Promise<void>;
}

/** Runs redis-cli and resolves with its output, or rejects with it. */
function redisCli(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('redis-cli', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', (err) => reject(new Error(`cannot run redis-cli (it ships with redis-server; is it on PATH?): ${err.message}`)));
    child.once('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`redis-cli ${args[0]} ${args[1]} exited with ${code}:\n${output}`))));
  });
}

/** A node's own view: is the cluster up, and does it know every slot's owner? */
async function clusterOk(port: number, nodeCount: number): Promise<boolean> {
  const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await r.connect();
    const info = (await r.cluster('INFO')) as string;
    const known = ((await r.cluster('NODES')) as string).trim().split('\n').length;
    return /cluster_state:ok/.test(info) && known === nodeCount;
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

/** Master ports from CLUSTER SLOTS as one node sees them, with the replicas of each. */
export async function readTopology(port: number): Promise<{ masters: number[]; replicasOf: Map<number, number[]> }> {
  const r = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  try {
    const ranges = await r.cluster('SLOTS');
    const replicasOf = new Map<number, number[]>();
    for (const [, , master, ...replicas] of ranges) if (master) replicasOf.set(master[1], replicas.map((n) => n[1]));
    return { masters: [...replicasOf.keys()].sort((a, b) => a - b), replicasOf };
  } finally {
    r.disconnect();
  }
}

/**
 * Starts a throwaway Redis Cluster on loopback: `masters` redis-servers with
 * cluster mode on (free ports, a temp dir each), `replicasPerMaster` replicas
 * of each, joined by `redis-cli --cluster create`. Resolves once every node
 * reports the cluster ok. `stop()` stops every server it started.
 */
export async function startRedisCluster(opts: { masters?: number; replicasPerMaster?: number } = {}): Promise<RedisClusterHandle> {
  const masterCount = opts.masters ?? 3;
  const replicas = opts.replicasPerMaster ?? 0;
  const total = masterCount * (1 + replicas);
  const servers: RedisServerHandle[] = [];
  const stop = async (): Promise<void> => {
    await Promise.allSettled(servers.map((s) => s.stop()));
  };
  try {
    for (let i = 0; i < total; i += 1) {
      servers.push(
        await startRedisServer({
          // AOF lets a promoted replica and a restarted node keep what they acknowledged.
          appendonly: replicas > 0,
          args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000'],
        }),
      );
    }
    const nodes = servers.map((s) => ({ host: '127.0.0.1', port: s.port }));
    await redisCli([
      '--cluster', 'create',
      ...nodes.map((n) => `${n.host}:${n.port}`),
      '--cluster-replicas', String(replicas),
      '--cluster-yes',
    ]);
    for (const n of nodes) await waitFor(`the cluster to be ok on port ${n.port}`, () => clusterOk(n.port, total), { timeoutMs: 30_000 });
    await waitFor(
      `${masterCount} masters with ${replicas} replicas each`,
      async () => {
        const t = await readTopology(nodes[0]!.port);
        return t.masters.length === masterCount && [...t.replicasOf.values()].every((r) => r.length === replicas);
      },
      { timeoutMs: 30_000 },
    );
    return {
      seeds: nodes.map((n) => `${n.host}:${n.port}`).join(','),
      nodes,
      servers,
      topology: () => readTopology(nodes[0]!.port),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
