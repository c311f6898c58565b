import type { Redis } from 'ioredis';

/** Bytes are sent to Redis in pieces of about this size. */
const FLUSH_BYTES = 256 * 1024;

/**
 * Streams one upload into a Redis key as it arrives, so the API never holds a
 * whole file in memory. Every write refreshes the key's expiry, so a request
 * that dies before it commits or discards leaves nothing behind for long.
 */
export class StageWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private inFlight: Promise<unknown> = Promise.resolve();
  private closed = false;
  bytes = 0;

  constructor(
    private readonly redis: Redis,
    readonly key: string,
    private readonly ttlSeconds: number,
  ) {}

  /** Buffers a chunk; resolves once Redis has what is past the flush size. */
  async write(chunk: Buffer): Promise<void> {
    if (this.closed) return;
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    this.bytes += chunk.length;
    if (this.pendingBytes >= FLUSH_BYTES) await this.flush();
  }

  /** Sends what is buffered. An empty file still gets its (empty) key. */
  async flush(): Promise<void> {
    if (this.closed) return;
    const data = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.inFlight = this.redis.multi().append(this.key, data).expire(this.key, this.ttlSeconds).exec();
    await this.inFlight;
  }

  /** Drops the staged bytes; waits for a write under way so none lands after. */
  async discard(): Promise<void> {
    this.closed = true;
    this.pending = [];
    this.pendingBytes = 0;
    await this.inFlight.catch(() => undefined);
    await this.redis.del(this.key);
  }
}
