import { connect, type Socket } from 'node:net';

/** One HTTP/1.1 response as it came off the socket. */
export interface RawResponse {
  status: number;
  /** Header names in lower case; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: string;
  /** The parsed body when it is JSON, else undefined. */
  json: any;
}

/**
 * A TCP connection to the API on loopback that sends exactly the bytes it is
 * given (request smuggling, chunk framing and slow clients need that), and
 * parses the responses that come back. Writes after the server closed the
 * connection are dropped instead of failing, as a real client's would be.
 */
export class RawClient {
  private received = Buffer.alloc(0);
  private readonly parsed: RawResponse[] = [];
  private waiters: (() => void)[] = [];
  /** Resolves when the connection is closed, by either side. */
  readonly closed: Promise<void>;
  isClosed = false;
  /** Bytes the client has handed to the socket. */
  sent = 0;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.parse(false);
    });
    // ECONNRESET or EPIPE once the server has answered and closed: the close event says the rest.
    socket.on('error', () => {});
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.isClosed = true;
        this.parse(true);
        resolve();
      }),
    );
  }

  static open(port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  /** Writes bytes and waits until the socket takes more; false once the connection is closed. */
  async write(data: string | Buffer): Promise<boolean> {
    if (this.isClosed || this.socket.destroyed || this.socket.writableEnded) return false;
    this.sent += typeof data === 'string' ? Buffer.byteLength(data) : data.length;
    if (this.socket.write(data)) return true;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
    return !this.isClosed;
  }

  /** Responses parsed so far. */
  get responses(): readonly RawResponse[] {
    return this.parsed;
  }

  /** The `n`th response (from 0), once it has fully arrived; rejects after `timeoutMs` or when the connection closes first. */
  async response(n = 0, timeoutMs = 10_000): Promise<RawResponse> {
    const deadline = Date.now() + timeoutMs;
    while (this.parsed.length <= n) {
      if (this.isClosed) throw new Error(`connection closed after ${this.parsed.length} response(s), expected response ${n}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no response ${n} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.parsed[n]!;
  }

  /** Resolves true when the connection closes within `timeoutMs`, false otherwise. */
  async closesWithin(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    try {
      return await Promise.race([this.closed.then(() => true as const), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  destroy(): void {
    this.socket.destroy();
  }

  private parse(atClose: boolean): void {
    for (;;) {
      const res = takeResponse(this.received, atClose);
      if (!res) break;
      this.parsed.push(res.response);
      this.received = this.received.subarray(res.consumed);
    }
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/** One complete response from the front of `buf`, framed by Content-Length, chunked encoding, or the close. */
function takeResponse(buf: Buffer, atClose: boolean): { response: RawResponse; consumed: number } | undefined {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = buf.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let at = end + 4;
  let body: Buffer;
  if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
    const parts: Buffer[] = [];
    for (;;) {
      const lineEnd = buf.indexOf('\r\n', at);
      if (lineEnd < 0) return undefined;
      const size = parseInt(buf.subarray(at, lineEnd).toString('latin1'), 16);
      if (buf.length < lineEnd + 2 + size + 2) return undefined;
      parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
      if (size === 0) break;
    }
    body = Buffer.concat(parts);
  } else if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    if (buf.length < at + length) return undefined;
    body = buf.subarray(at, at + length);
    at += length;
  } else {
    if (!atClose) return undefined;
    body = buf.subarray(at);
    at = buf.length;
  }
  const text = body.toString('utf8');
  let json: unknown;
  try {
    json = (headers['content-type'] ?? '').includes('json') ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { response: { status, headers, body: text, json }, consumed: at };
}

/** A request line and header block, with the blank line that ends it. */
export function requestHead(method: string, path: string, headers: Record<string, string | number>): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

/** One chunk of a `Transfer-Encoding: chunked` body; an empty one ends the body. */
export function chunk(data: string | Buffer): Buffer {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
}

/** Pieces of a multipart body with the given boundary. */
export function multipartPieces(boundary: string) {
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    field: (name: string, value: string): string => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
    fileHead: (filename: string, field = 'knowledge_base_files'): string =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: text/plain\r\n\r\n`,
    /** Ends the file part before it and the whole body. */
    close: `\r\n--${boundary}--\r\n`,
    end: `--${boundary}--\r\n`,
  };
}
