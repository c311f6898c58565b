import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { PayloadTooLargeError, RequestTimeoutError } from '../shared/errors.js';

export interface BodyMeterLimits {
  /** Whole request body, in bytes; one byte more fails with 413. */
  maxBytes: number;
  /** A body that arrives slower than this (bytes per second) over `rateWindowMs` fails with 408. 0: off. */
  minBytesPerSecond: number;
  /** Window of the minimum-rate check, milliseconds. */
  rateWindowMs: number;
}

const TICK_MS = 1000;
/**
 * Chunks are passed on in pieces of at most this size, so back-pressure from
 * the parser acts at a fine grain whatever size the body arrives in.
 */
const PIECE_BYTES = 64 * 1024;

/**
 * Counts a request body on its way to the multipart parser: it fails the
 * stream with 413 the moment the body passes `maxBytes`, and with 408 when the
 * client sends less than the minimum rate for a whole window. Time the body
 * spends waiting on us (Redis back-pressure) is not held against the client:
 * a tick counts only when nothing was buffered, upstream or here.
 */
export class BodyMeter extends Transform {
  bytes = 0;
  private readonly ticks: number[] = [];
  private lastBytes = 0;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly source: Readable,
    private readonly limits: BodyMeterLimits,
  ) {
    super();
    if (limits.minBytesPerSecond > 0) {
      this.timer = setInterval(() => this.tick(), TICK_MS);
      this.timer.unref();
    }
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limits.maxBytes) {
      return done(new PayloadTooLargeError(`The request body is larger than the ${this.limits.maxBytes}-byte limit`));
    }
    for (let at = 0; at < chunk.length; at += PIECE_BYTES) this.push(chunk.subarray(at, at + PIECE_BYTES));
    done();
  }

  override _flush(done: TransformCallback): void {
    this.stop();
    done();
  }

  override _destroy(err: Error | null, done: (err: Error | null) => void): void {
    this.stop();
    done(err);
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private tick(): void {
    const received = this.bytes - this.lastBytes;
    this.lastBytes = this.bytes;
    const waitingOnUs = this.source.readableLength + this.writableLength + this.readableLength > 0;
    if (waitingOnUs) {
      this.ticks.length = 0;
      return;
    }
    this.ticks.push(received);
    const window = Math.max(1, Math.round(this.limits.rateWindowMs / TICK_MS));
    if (this.ticks.length > window) this.ticks.shift();
    if (this.ticks.length < window) return;
    const sum = this.ticks.reduce((a, b) => a + b, 0);
    if (sum < (this.limits.minBytesPerSecond * window * TICK_MS) / 1000) {
      this.destroy(
        new RequestTimeoutError(
          `The request body arrived slower than ${this.limits.minBytesPerSecond} bytes per second for ${window} s`,
        ),
      );
    }
  }
}
