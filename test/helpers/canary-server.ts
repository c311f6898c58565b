import http, { type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import net, { type AddressInfo, type LookupFunction, type Socket } from 'node:net';
import tls from 'node:tls';
import zlib from 'node:zlib';
import type { ConnectFunction, ConnectTarget, FetchUrlOptions } from '../../worker/fetch/fetch-url.js';

/** A loopback HTTP origin that records every TCP connection it accepts. */
export interface Canary {
  port: number;
  /** `http://127.0.0.1:<port><path>` */
  url(path: string): string;
  /** TCP connections accepted so far. */
  connections(): number;
  /** Request path and headers, in arrival order. */
  requests: { path: string; headers: IncomingHttpHeaders }[];
  /** Body bytes handed to the socket per path (what the client was made to take). */
  bytesSent(path: string): number;
  /** Resolves once no accepted socket is open (a client that aborts must close its socket). */
  allClosed(): Promise<void>;
  close(): Promise<void>;
}

export const MB = 1024 * 1024;

/** A 1x1 PNG, built here so the repository carries no binary fixture. */
export function tinyPng(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(zlib.crc32(body), body.length + 4);
    return out;
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]);
  const idat = zlib.deflateSync(Buffer.from([0, 0]));
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/**
 * ~10 MB of gzip that inflates to ~10 GB of zeros: 10,000 copies of one gzip
 * member over 1 MiB of zeros (gunzip decodes concatenated members), so it
 * builds in milliseconds instead of compressing 10 GB.
 */
function gzipBomb(): Buffer {
  const member = zlib.gzipSync(Buffer.alloc(MB), { level: 9 });
  return Buffer.concat(Array.from({ length: 10_000 }, () => member));
}

/** Starts the canary on 127.0.0.1 and a free port. Routes are listed in `route()`. */
export async function startCanary(): Promise<Canary> {
  const sockets = new Set<Socket>();
  const sent = new Map<string, number>();
  const requests: Canary['requests'] = [];
  let accepted = 0;
  let flaky = 0;
  let bomb: Buffer | undefined;
  const idleWaiters: (() => void)[] = [];

  const record = (path: string, n: number) => sent.set(path, (sent.get(path) ?? 0) + n);

  /** Writes `total` bytes of `fill` in 64 KiB chunks, waiting for drain, until done or the client goes away. */
  async function stream(res: ServerResponse, path: string, total: number, source: (offset: number, n: number) => Buffer) {
    for (let offset = 0; offset < total && !res.destroyed; ) {
      const n = Math.min(64 * 1024, total - offset);
      const ok = res.write(source(offset, n));
      offset += n;
      record(path, n);
      if (!ok) {
        await new Promise<void>((resolve) => {
          const done = () => (res.off('drain', done).off('close', done), resolve());
          res.on('drain', done).on('close', done);
        });
      }
    }
    if (!res.destroyed) res.end();
  }

  /** Sends a response byte for byte, bypassing Node's framing (for lying Content-Length). */
  function raw(socket: Socket, head: string, body: Buffer | string, then: 'end' | 'destroy' | 'hold') {
    socket.write(`HTTP/1.1 ${head}\r\n\r\n`);
    socket.write(body, () => {
      if (then === 'end') socket.end();
      if (then === 'destroy') socket.destroy();
    });
  }

  function route(req: http.IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://canary');
    const path = url.pathname;
    const html = '<!doctype html><html><head><title>Canary</title></head><body><p>hello</p></body></html>';
    let m: RegExpExecArray | null;
    if (path === '/ok' || path === '/docs/guide.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    } else if (path === '/png') {
      res.writeHead(200, { 'content-type': 'image/png' }).end(tinyPng());
    } else if (path === '/missing') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
    } else if ((m = /^\/status\/(\d{3})$/.exec(path))) {
      res.writeHead(Number(m[1])).end();
    } else if ((m = /^\/fails\/(\d+)\/[\w-]+$/.exec(path))) {
      // 503 for the first N requests of this exact path, then 200.
      const seen = requests.filter((r) => r.path === path).length;
      if (seen <= Number(m[1])) res.writeHead(503, { 'retry-after': '1' }).end('busy');
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('recovered');
    } else if (path === '/flaky') {
      if (flaky++ === 0) res.writeHead(503, { 'retry-after': '1' }).end('busy');
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('recovered');
    } else if ((m = /^\/r\/(\d+)$/.exec(path))) {
      const n = Number(m[1]);
      res.writeHead(302, { location: n === 0 ? '/ok' : `/r/${n - 1}`, 'set-cookie': 'session=canary' }).end();
    } else if (path === '/loop') {
      res.writeHead(302, { location: '/loop' }).end();
    } else if (path === '/redirect') {
      res.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
    } else if (path === '/close-redirect') {
      res.writeHead(302, { location: '/ok', connection: 'close' }).end();
    } else if (path === '/disposition') {
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-disposition': url.searchParams.get('v') ?? '' }).end('%PDF-');
    } else if ((m = /^\/bytes\/(\d+)$/.exec(path))) {
      const n = Number(m[1]);
      res.writeHead(200, { 'content-type': 'text/plain', ...(url.searchParams.has('cl') && { 'content-length': n }) });
      void stream(res, path, n, (_o, k) => Buffer.alloc(k, 0x61));
    } else if (path === '/big') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      void stream(res, path, 40 * MB, (_o, k) => Buffer.alloc(k, 0x61));
    } else if (path === '/lie-small') {
      raw(req.socket, '200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100', Buffer.alloc(5 * MB, 0x62), 'end');
    } else if (path === '/lie-big') {
      raw(req.socket, '200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000000000', 'only a little', 'hold');
    } else if (path === '/short') {
      raw(req.socket, '200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000', 'ten bytes.', 'destroy');
    } else if (path === '/gzip' || path === '/br' || path === '/deflate' || path === '/gzip3') {
      const text = Buffer.from(html);
      const [encoding, body] =
        path === '/gzip' ? ['gzip', zlib.gzipSync(text)]
        : path === '/br' ? ['br', zlib.brotliCompressSync(text)]
        : path === '/deflate' ? ['deflate', zlib.deflateSync(text)]
        : ['gzip, gzip, gzip', zlib.gzipSync(zlib.gzipSync(zlib.gzipSync(text)))];
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': encoding }).end(body);
    } else if (path === '/gzip-bomb') {
      const body = (bomb ??= gzipBomb());
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip', 'content-length': body.length });
      void stream(res, path, body.length, (o, k) => body.subarray(o, o + k));
    } else if (path === '/trickle') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => (res.write('x'), record(path, 1)), 100);
      res.on('close', () => clearInterval(timer));
    } else if (path === '/hang') {
      // Accepts the request and never answers.
    } else {
      res.writeHead(404).end();
    }
  }

  const server = http.createServer((req, res) => {
    requests.push({ path: req.url ?? '', headers: req.headers });
    route(req, res);
  });
  server.on('connection', (socket: Socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0) idleWaiters.splice(0).forEach((wake) => wake());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    connections: () => accepted,
    requests,
    bytesSent: (path) => sent.get(path) ?? 0,
    allClosed: () => (sockets.size === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Stands in for a public origin: it passes the real address policy, and the connect stub sends it to the canary. */
export const PUBLIC = '93.184.216.34';

export interface GuardStubs {
  /** Names the stub lookup knows; tests may add entries (a function answers per call). */
  names: Record<string, string[] | (() => string[])>;
  connects: ConnectTarget[];
  lookups: string[];
  /** Connect attempts to anything but PUBLIC or the canary's loopback ports; must stay empty. */
  violations: string[];
  /** Fetch options wired to the stubs: 1 MB cap, 10 s deadline, allowPrivate false. */
  opts(extra?: Partial<FetchUrlOptions>): FetchUrlOptions;
}

/**
 * A stub lookup (no real DNS: unknown names fail with ENOTFOUND) and a stub
 * connect that only ever opens sockets to 127.0.0.1: PUBLIC goes to the canary,
 * 127.0.0.1 only on the canary port or `loopbackPorts`. Anything else is
 * recorded as a violation and throws before a socket exists.
 */
export function guardStubs(canary: Canary, loopbackPorts: number[] = []): GuardStubs {
  const connects: ConnectTarget[] = [];
  const lookups: string[] = [];
  const violations: string[] = [];
  const names: GuardStubs['names'] = {
    'public.test': [PUBLIC],
    'origin.test': [PUBLIC],
    'evil.test': ['169.254.169.254'],
    'internal.test': ['10.1.2.3'],
    'mixed.test': [PUBLIC, '10.0.0.7'],
    'mixed6.test': [PUBLIC, 'fd00::7'],
    localhost: ['127.0.0.1', '::1'],
    'localhost.': ['127.0.0.1'],
  };
  const lookup: LookupFunction = (hostname, options, callback) => {
    lookups.push(hostname);
    const entry = names[hostname];
    if (entry === undefined) {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
      return;
    }
    const addresses = typeof entry === 'function' ? entry() : entry;
    if (options.all) callback(null, addresses.map((address) => ({ address, family: net.isIP(address) })));
    else callback(null, addresses[0] ?? '', net.isIP(addresses[0] ?? ''));
  };
  const connect: ConnectFunction = (target) => {
    connects.push(target);
    const loopback = target.address === '127.0.0.1' && [canary.port, ...loopbackPorts].includes(target.port);
    if (target.address !== PUBLIC && !loopback) {
      violations.push(`connect attempted to ${target.address}:${target.port}`);
      throw new Error('forbidden connect attempted');
    }
    const port = target.address === PUBLIC ? canary.port : target.port;
    if (target.protocol === 'https:') return tls.connect({ host: '127.0.0.1', port, servername: target.servername ?? '' });
    return net.connect({ host: '127.0.0.1', port });
  };
  const opts = (extra: Partial<FetchUrlOptions> = {}): FetchUrlOptions => ({
    maxBytes: MB,
    timeoutMs: 10_000,
    allowPrivate: false,
    lookup,
    connect,
    ...extra,
  });
  return { names, connects, lookups, violations, opts };
}
