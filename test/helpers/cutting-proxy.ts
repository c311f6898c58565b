import { once } from 'node:events';
import { createConnection, createServer, type Socket } from 'node:net';

/** When the proxy drops everything: at the n-th connection since the last cut, or when a client sends a command. */
export type CutRule = { connection: number } | { command: string };

export interface CuttingProxy {
  url: string;
  /** How many rules have fired. */
  cuts(): number;
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy in front of a Redis that, like a Redis going away,
 * drops every connection when its next rule matches. The rules fire once
 * each, in order; after the last one everything passes through. Commands are
 * matched in the raw protocol bytes, so `CONFIG` matches `CONFIG GET ...`.
 */
export async function startCuttingProxy(redisPort: number, rules: CutRule[]): Promise<CuttingProxy> {
  const pending = [...rules];
  const open = new Set<Socket>();
  let accepted = 0;
  let fired = 0;
  const cut = (): void => {
    pending.shift();
    fired++;
    accepted = 0;
    for (const s of open) s.destroy();
    open.clear();
  };
  const server = createServer((client) => {
    accepted++;
    const rule = pending[0];
    if (rule && 'connection' in rule && accepted >= rule.connection) {
      client.destroy();
      cut();
      return;
    }
    const upstream = createConnection({ host: '127.0.0.1', port: redisPort });
    open.add(client).add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    upstream.on('data', (d: Buffer) => client.write(d));
    client.on('data', (d: Buffer) => {
      const next = pending[0];
      if (next && 'command' in next && d.toString('latin1').toUpperCase().includes(next.command.toUpperCase())) return cut();
      upstream.write(d);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `redis://127.0.0.1:${address.port}`,
    cuts: () => fired,
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
