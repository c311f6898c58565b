import { once } from 'node:events';
import http, { type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The kinds of page the origin serves; each URL carries its own number so none is a duplicate of another. */
export type OriginPage = 'html' | 'text' | 'slow' | 'flaky' | 'missing';

export interface ChaosOrigin {
  port: number;
  /** `http://127.0.0.1:<port>/<kind>/<n>`, plus `?ms=` for a slow page. */
  url(kind: OriginPage, n: number, slowMs?: number): string;
  /** Requests answered, by status. */
  answered: Record<number, number>;
  close(): Promise<void>;
}

const paragraph = (n: number, i: number): string =>
  `Section ${i} of page ${n}. The clinic opens at nine and closes at five; parking is free for patients and visitors alike.`;

function htmlPage(n: number): string {
  const body = Array.from({ length: 6 }, (_, i) => `<p>${paragraph(n, i)}</p>`).join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Page ${n}</title></head><body><h1>Page ${n}</h1>\n${body}\n</body></html>`;
}

/**
 * A loopback HTTP origin for URL sources: HTML and text pages, slow pages
 * that drip their body, pages that answer 500 the first time and 200 after,
 * and pages that are always 404.
 */
export async function startChaosOrigin(): Promise<ChaosOrigin> {
  const answered: Record<number, number> = {};
  const flakySeen = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  const send = (res: ServerResponse, status: number, type: string, body: string): void => {
    answered[status] = (answered[status] ?? 0) + 1;
    res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) }).end(body);
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const [, kind = '', id = '0'] = url.pathname.split('/');
    const n = Number.parseInt(id, 10) || 0;
    switch (kind as OriginPage) {
      case 'html':
        return send(res, 200, 'text/html; charset=utf-8', htmlPage(n));
      case 'text':
        return send(res, 200, 'text/plain; charset=utf-8', Array.from({ length: 5 }, (_, i) => paragraph(n, i)).join('\n\n'));
      case 'flaky':
        if (!flakySeen.has(url.pathname)) {
          flakySeen.add(url.pathname);
          return send(res, 500, 'text/plain', 'try again');
        }
        return send(res, 200, 'text/html; charset=utf-8', htmlPage(n));
      case 'slow': {
        // Headers at once, then the body in four pieces over `ms`.
        const ms = Math.min(Number(url.searchParams.get('ms')) || 2000, 20_000);
        const body = Buffer.from(htmlPage(n));
        answered[200] = (answered[200] ?? 0) + 1;
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': body.length });
        const quarter = Math.ceil(body.length / 4);
        let sent = 0;
        const drip = (): void => {
          if (res.destroyed) return;
          res.write(body.subarray(sent, sent + quarter));
          sent += quarter;
          if (sent >= body.length) return void res.end();
          const t = setTimeout(() => {
            timers.delete(t);
            drip();
          }, ms / 4);
          timers.add(t);
        };
        return drip();
      }
      default:
        return send(res, 404, 'text/plain', 'not here');
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    answered,
    url: (kind, n, slowMs) => `http://127.0.0.1:${port}/${kind}/${n}${kind === 'slow' ? `?ms=${slowMs ?? 2000}` : ''}`,
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
