import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { connectRedis, createRedis } from '../../shared/redis/redis.js';
import { waitFor } from '../helpers/wait.js';

/** A loopback server that accepts connections and never answers: a node stuck in a failover, as a client sees it. */
async function silentNode(): Promise<{ port: number; close(): void }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

describe('waits that end', () => {
  it('waitFor fails at its deadline, naming what it waited for, when a probe never settles', async () => {
    const started = Date.now();
    const never = () => new Promise<boolean>(() => undefined);
    await expect(waitFor('a hung probe', never, { timeoutMs: 300 })).rejects.toThrow(/timed out after 300 ms waiting for a hung probe/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('waitFor still returns what a slow probe answers before the deadline', async () => {
    const slow = () => new Promise<string>((resolve) => setTimeout(() => resolve('answer'), 100));
    await expect(waitFor('a slow probe', slow, { timeoutMs: 1_000 })).resolves.toBe('answer');
  });

  it('connectRedis gives up on a cluster that never becomes ready, with the time it waited', async () => {
    const node = await silentNode();
    const cluster = createRedis({ redisUrl: 'redis://127.0.0.1:1', redisClusterNodes: [{ host: '127.0.0.1', port: node.port }] }, 'worker');
    cluster.on('error', () => undefined);
    const started = Date.now();
    try {
      await expect(connectRedis(cluster, 500)).rejects.toThrow(/redis was not ready within 500 ms/);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      cluster.disconnect();
      node.close();
    }
  });
});
