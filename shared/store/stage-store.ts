import type { RedisClient } from '../redis/redis.js';
import { newDocumentId } from '../ids.js';
import type { KeySpace } from './keys.js';

/** Bytes are sent to Redis in pieces of about this size. */
const FLUSH_BYTES = 256 * 1024;
/**
 * Life of the bytes of an upload that is still streaming, refreshed by every
 * write: a request that dies before it commits or discards leaves nothing
 * behind for longer. Committed bytes get the store's blob TTL instead.
 */
export const UPLOAD_IDLE_TTL_SECONDS = 3600;

/**
 * The lifecycle of uploaded bytes before their source exists: `open` a stage
 * per file part, stream into it, then either the knowledge-base commit script
 * moves it into place or `discard` drops it. Nothing else touches stage keys.
 */
export class StageStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
    private readonly idleTtlSeconds = UPLOAD_IDLE_TTL_SECONDS,
  ) {}

  /** A new, empty stage for one file of knowledge base `kbId`. */
  open(kbId: string): Stage {
    return new Stage(this.redis, this.keys.stage(kbId, newDocumentId()), this.idleTtlSeconds);
  }

  /** Drops every given stage; never throws (the keys expire anyway). */
  async discard(stages: Iterable<Pick<Stage, 'discard'>>): Promise<void> {
    await Promise.allSettled([...stages].map((s) => s.discard()));
  }
}

/**
 * One upload streaming into a Redis key as it arrives, so the API never holds
 * a whole file in memory.
 */
export class Stage {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private inFlight: Promise<unknown> = Promise.resolve();
  private closed = false;
  bytes = 0;

  constructor(
    private readonly redis: RedisClient,
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
