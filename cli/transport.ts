/**
 * What the CLI adds to `fetch`: it counts request bodies as they stream (for
 * the upload progress), and turns a connection failure (`fetch failed`) into
 * a sentence naming the address and the reason.
 */

/** Bytes of request bodies handed to the connection so far, with a listener for progress. */
export class BytesSent {
  bytes = 0;
  listener: ((bytes: number) => void) | undefined;
  add(n: number): void {
    this.bytes += n;
    this.listener?.(this.bytes);
  }
}

/**
 * A `fetch` that streams each request body through a counter: every chunk is
 * counted when the connection takes it, so `sent.bytes` follows the upload
 * rather than jumping when the answer comes. The body goes chunked (its
 * length is not known up front), which the service accepts.
 */
export function countingFetch(sent: BytesSent, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const req = new Request(input, init);
    if (!req.body) return base(req);
    const counted = req.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          controller.enqueue(chunk);
          sent.add(chunk.byteLength);
        },
      }),
    );
    return base(req.url, { method: req.method, headers: req.headers, body: counted, signal: req.signal, duplex: 'half' } as RequestInit);
  };
}

/** What a socket error code means, in words. */
const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'name lookup failed for now',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed while sending',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed by the other side',
  UND_ERR_HEADERS_TIMEOUT: 'no answer in time',
  UND_ERR_BODY_TIMEOUT: 'answer stopped coming',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is for another name',
};

/**
 * The code of a `fetch failed` error's cause (`ECONNREFUSED`), looking inside
 * an AggregateError (a name with several addresses, each refused); undefined
 * when the error is not a failure to talk to the service.
 */
export function connectionCode(err: unknown): string | undefined {
  if (!(err instanceof TypeError) || err.message !== 'fetch failed') return undefined;
  let cause = (err as { cause?: unknown }).cause as { code?: unknown; errors?: unknown[] } | undefined;
  if (cause && typeof cause.code !== 'string' && Array.isArray(cause.errors)) cause = cause.errors[0] as typeof cause;
  return typeof cause?.code === 'string' ? cause.code : 'unknown';
}

/**
 * `cannot reach http://127.0.0.1:3000 (ECONNREFUSED: connection refused)`
 * and what to do, for a `fetch failed` error; undefined for any other error.
 */
export function unreachableMessage(err: unknown, baseUrl: string): string | undefined {
  const code = connectionCode(err);
  if (code === undefined) return undefined;
  const cause = (err as { cause?: { message?: string } }).cause;
  const reason = code === 'unknown' ? (cause?.message ?? 'no reason given') : `${code}: ${REASONS[code] ?? cause?.message ?? 'no reason given'}`;
  return `cannot reach ${baseUrl} (${reason}). Is the service running? Set KB_INGEST_URL to its address if it runs elsewhere.`;
}
