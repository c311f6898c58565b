import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { PayloadTooLargeError, RequestTimeoutError } from '../../shared/errors.js';

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
 * A small chunk that follows a quiet spell is passed on at once; small chunks
 * that come sooner than `GATHER_MS` after the last piece are copied together
 * and passed on as one piece once this many bytes are gathered, once
 * `GATHER_MS` has passed, or at the end of the body. A chunked body can
 * arrive in one-byte chunks, and the parser keeps an object per chunk it is
 * given while a field lasts: a 10 MiB field sent byte by byte would cost far
 * more memory than its bytes.
 */
const GATHER_BYTES = 16 * 1024;
const GATHER_MS = 20;

/**
 * Counts a request body on its way to the multipart parser: it fails the
 * stream with 413 the moment the body passes `maxBytes`, and with 408 when the
 * client sends less than the minimum rate for a whole window. Time the body
 * spends waiting on us (Redis back-pressure) is not held against the client:
 * a tick counts only when nothing was buffered, upstream or here. Small
 * chunks leave it gathered into larger pieces, large ones cut into pieces.
 */
export class BodyMeter extends Transform {
  bytes = 0;
  private readonly ticks: number[] = [];
  private lastBytes = 0;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly gathered = Buffer.allocUnsafe(GATHER_BYTES);
  private gatheredBytes = 0;
  private gatherTimer: NodeJS.Timeout | undefined;
  private lastRelease = 0;

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
    if (chunk.length < GATHER_BYTES) {
      this.gather(chunk);
    } else {
      this.release();
      for (let at = 0; at < chunk.length; at += PIECE_BYTES) this.push(chunk.subarray(at, at + PIECE_BYTES));
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    this.release();
    this.stop();
    done();
  }

  private gather(chunk: Buffer): void {
    if (this.gatheredBytes + chunk.length > GATHER_BYTES) this.release();
    chunk.copy(this.gathered, this.gatheredBytes);
    this.gatheredBytes += chunk.length;
    if (this.gatheredBytes === GATHER_BYTES) return this.release();
    if (this.gatherTimer) return;
    const quietMs = performance.now() - this.lastRelease;
    if (quietMs >= GATHER_MS) this.release();
    else this.gatherTimer = setTimeout(() => this.release(), GATHER_MS - quietMs);
  }

  /** Passes on the gathered bytes as one piece of their own (a copy, so no piece holds the whole gather buffer). */
  private release(): void {
    clearTimeout(this.gatherTimer);
    this.gatherTimer = undefined;
    if (this.gatheredBytes === 0 || this.destroyed) return;
    const piece = Buffer.from(this.gathered.subarray(0, this.gatheredBytes));
    this.gatheredBytes = 0;
    this.lastRelease = performance.now();
    this.push(piece);
  }

  override _destroy(err: Error | null, done: (err: Error | null) => void): void {
    this.stop();
    done(err);
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    clearTimeout(this.gatherTimer);
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
