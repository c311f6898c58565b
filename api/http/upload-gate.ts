import { masters, type RedisClient } from '../../shared/redis/redis.js';
import { TooManyRequestsError, UnavailableError } from '../../shared/errors.js';

export interface UploadGateOptions {
  /** File uploads one API process streams at once, all keys together. */
  maxUploads: number;
  /** File uploads one API key may stream at once in one process. */
  maxUploadsPerKey: number;
  /** Refuse uploads while Redis `used_memory` is above this percentage of `maxmemory` (100: never). */
  redisHighWaterPercent: number;
}

/** How long a reading of Redis memory is trusted, so a burst of uploads costs one INFO. */
const MEMORY_READING_MS = 1000;
const RETRY_AFTER_SECONDS = 2;

/**
 * Admission of requests that carry file parts. Each key has its own share of
 * the process's upload slots, so one key streaming slowly cannot block other
 * tenants; and no upload starts while Redis, which holds the staged bytes, is
 * near its memory limit. Requests without files never pass through here.
 */
export class UploadGate {
  private total = 0;
  private readonly perKey = new Map<string, number>();
  private reading: { at: number; above: Promise<boolean> } | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly opts: UploadGateOptions,
  ) {}

  /**
   * Takes a slot for `keyId` or throws: 429 when the key has its share in use,
   * 503 when the process is full or Redis memory is high. Returns the release.
   */
  async admit(keyId: string): Promise<() => void> {
    const mine = this.perKey.get(keyId) ?? 0;
    if (mine >= this.opts.maxUploadsPerKey) {
      throw new TooManyRequestsError(
        RETRY_AFTER_SECONDS,
        `This key already has ${mine} uploads in progress (at most ${this.opts.maxUploadsPerKey}); retry when one finishes`,
      );
    }
    if (this.total >= this.opts.maxUploads) {
      throw new UnavailableError('Too many uploads are in progress; try again shortly', RETRY_AFTER_SECONDS);
    }
    this.take(keyId);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.give(keyId);
    };
    try {
      await this.assertRoom();
    } catch (err) {
      release();
      throw err;
    }
    return release;
  }

  /**
   * Throws a 503 while Redis memory is above the high-water mark. Every write
   * that can grow Redis calls it before it writes (texts, URLs and renames
   * too), not only file uploads: small requests add up just as well.
   */
  async assertRoom(): Promise<void> {
    if (await this.redisMemoryHigh()) {
      throw new UnavailableError('Storage is nearly full; writes are paused, try again shortly', 30);
    }
  }

  private take(keyId: string): void {
    this.total += 1;
    this.perKey.set(keyId, (this.perKey.get(keyId) ?? 0) + 1);
  }

  private give(keyId: string): void {
    this.total -= 1;
    const left = (this.perKey.get(keyId) ?? 1) - 1;
    if (left > 0) this.perKey.set(keyId, left);
    else this.perKey.delete(keyId);
  }

  private redisMemoryHigh(): Promise<boolean> {
    if (this.opts.redisHighWaterPercent >= 100) return Promise.resolve(false);
    const now = Date.now();
    if (!this.reading || now - this.reading.at > MEMORY_READING_MS) {
      const above = this.readMemory();
      this.reading = { at: now, above };
      // A failed reading is not cached: the next upload asks again.
      above.catch(() => (this.reading = undefined));
    }
    return this.reading.above;
  }

  /** On a cluster the fullest master decides: staged bytes land on whichever master owns the slot. */
  private async readMemory(): Promise<boolean> {
    const infos = await Promise.all(masters(this.redis).map((node) => node.info('memory')));
    return infos.some((info) => {
      const used = Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? 0);
      const max = Number(/^maxmemory:(\d+)/m.exec(info)?.[1] ?? 0);
      // Without maxmemory Redis grows until the machine runs out; nothing to compare with.
      if (max === 0) return false;
      return used * 100 > max * this.opts.redisHighWaterPercent;
    });
  }
}
