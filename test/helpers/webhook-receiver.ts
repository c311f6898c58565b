import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, with what the Standard Webhooks library made of its signature. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed event when the signature verified with the path's secret, else undefined. */
  verified?: { id: string; type: string; createdAt: string; data: Record<string, unknown> };
  /** Why verification failed, when it did. */
  verifyError?: string;
  /** The status answered. */
  status: number;
}

/** How one path answers: the n-th request (from 0) gets `statuses[n]`, or the last one. */
export interface Route {
  secret?: string;
  statuses: number[];
  /** Runs before the answer is sent (e.g. deletes the webhook mid-delivery). */
  before?: (req: Received) => Promise<void>;
  /** Never answers: the request stays open until the sender gives up. */
  hang?: boolean;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  received: Received[];
  on(path: string, route: Route): void;
  at(path: string): Received[];
  /** The most requests to `path` that were open at the same time. */
  maxOpen(path: string): number;
  close(): Promise<void>;
}

/**
 * A loopback HTTP receiver of webhook deliveries. Every request is verified
 * with the `standardwebhooks` package, as a real receiver would, against the
 * secret of its path.
 */
export async function startReceiver(): Promise<Receiver> {
  const routes = new Map<string, Route>();
  const received: Received[] = [];
  const open = new Map<string, number>();
  const peak = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    open.set(path, (open.get(path) ?? 0) + 1);
    peak.set(path, Math.max(peak.get(path) ?? 0, open.get(path)!));
    res.on('close', () => open.set(path, open.get(path)! - 1));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const route = routes.get(path);
      const seen = received.filter((r) => r.path === path).length;
      const status = route ? (route.statuses[seen] ?? route.statuses.at(-1) ?? 200) : 404;
      const entry: Received = { path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status };
      if (route?.secret) {
        try {
          entry.verified = new Webhook(route.secret).verify(entry.body, req.headers as Record<string, string>) as Received['verified'];
        } catch (err) {
          entry.verifyError = (err as Error).message;
        }
      }
      received.push(entry);
      if (route?.hang) return;
      void (route?.before?.(entry) ?? Promise.resolve()).finally(() => {
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
      });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    origin: `http://127.0.0.1:${address.port}`,
    received,
    on: (path, route) => void routes.set(path, route),
    at: (path) => received.filter((r) => r.path === path),
    maxOpen: (path) => peak.get(path) ?? 0,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => undefined);
    },
  };
}
