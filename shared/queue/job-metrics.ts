import type { RedisClient } from '../redis/redis.js';
import type { KeySpace } from '../store/keys.js';
import { FORMAT_MIME } from '../formats/formats.js';

/** Extraction-time histogram buckets, seconds. */
export const EXTRACT_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export interface JobOutcome {
  /** text, url or file */
  type: string;
  status: 'ready' | 'failed';
  code?: string;
  mimeType?: string;
  bytes?: number;
  seconds: number;
}

export interface JobMetrics {
  jobs: { type: string; status: string; code: string; count: number }[];
  extract: { format: string; count: number; secondsSum: number; bytes: number; buckets: number[] }[];
}

const MIME_FORMAT = new Map(Object.entries(FORMAT_MIME).map(([format, mime]) => [mime, format]));

/** The format label of a MIME type. */
export function formatLabel(mimeType: string | undefined): string {
  return (mimeType && MIME_FORMAT.get(mimeType)) ?? 'other';
}

/**
 * Counts a finished job in Redis, so the API's /metrics shows the whole
 * deployment however many worker replicas run. One MULTI per call; a worker
 * uses {@link JobMetricsBatcher} instead.
 */
export async function recordOutcome(redis: RedisClient, keys: KeySpace, o: JobOutcome): Promise<void> {
  const batch = new MetricsBatch();
  batch.add(o);
  if (!(await batch.write(redis, keys))) throw new Error('could not write job metrics to Redis');
}

/** Increments of the two metric hashes, summed over any number of jobs. */
class MetricsBatch {
  readonly jobs = new Map<string, number>();
  readonly counts = new Map<string, number>();
  readonly sums = new Map<string, number>();

  get empty(): boolean {
    return this.jobs.size === 0 && this.counts.size === 0 && this.sums.size === 0;
  }

  add(o: JobOutcome): void {
    bump(this.jobs, `${o.type}|${o.status}|${o.code ?? ''}`, 1);
    if (o.status !== 'ready') return;
    const f = formatLabel(o.mimeType);
    bump(this.counts, `${f}|count`, 1);
    bump(this.sums, `${f}|sum`, o.seconds);
    bump(this.counts, `${f}|bytes`, o.bytes ?? 0);
    EXTRACT_BUCKETS.forEach((le, i) => {
      if (o.seconds <= le) bump(this.counts, `${f}|b${i}`, 1);
    });
  }

  merge(other: MetricsBatch): void {
    for (const [field, n] of other.jobs) bump(this.jobs, field, n);
    for (const [field, n] of other.counts) bump(this.counts, field, n);
    for (const [field, n] of other.sums) bump(this.sums, field, n);
  }

  /**
   * One MULTI, so a scrape never sees a job counted without its histogram.
   * Returns false when nothing was applied (the connection failed or the
   * transaction was discarded), so the caller may try again.
   */
  async write(redis: RedisClient, keys: KeySpace): Promise<boolean> {
    const tx = redis.multi();
    for (const [field, n] of this.jobs) tx.hincrby(keys.jobMetrics(), field, n);
    for (const [field, n] of this.counts) tx.hincrby(keys.extractMetrics(), field, n);
    for (const [field, n] of this.sums) tx.hincrbyfloat(keys.extractMetrics(), field, n);
    const results = await tx.exec().catch(() => null);
    if (!results) return false;
    // A command that failed inside EXEC (a key of the wrong type) is not retried: the others were applied.
    const failed = results.find(([err]) => err);
    if (failed) throw failed[0];
    return true;
  }
}

function bump(map: Map<string, number>, field: string, n: number): void {
  map.set(field, (map.get(field) ?? 0) + n);
}

/**
 * Job metrics of one worker process, summed in memory and written in one
 * MULTI about once a second (and on close) instead of one MULTI of about
 * fifteen commands per job. A failed write is kept and added to the next one.
 */
export class JobMetricsBatcher {
  private pending = new MetricsBatch();
  private readonly timer: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();

  /**
   * @param flushMs - how often the sums are written; default 1000 ms.
   * @param onError - told when a write fails (the counts are kept for the next one).
   */
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
    private readonly onError: (err: unknown) => void,
    flushMs = 1000,
  ) {
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  record(o: JobOutcome): void {
    this.pending.add(o);
  }

  /** Writes what has been counted so far; writes never overlap. */
  flush(): Promise<void> {
    this.writing = this.writing.then(async () => {
      if (this.pending.empty) return;
      const batch = this.pending;
      this.pending = new MetricsBatch();
      try {
        if (await batch.write(this.redis, this.keys)) return;
        batch.merge(this.pending);
        this.pending = batch;
        this.onError(new Error('could not write job metrics to Redis; they are kept for the next write'));
      } catch (err) {
        this.onError(err);
      }
    });
    return this.writing;
  }

  /** Stops the timer and writes the rest. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

export async function readJobMetrics(redis: RedisClient, keys: KeySpace): Promise<JobMetrics> {
  const [jobs, extract] = await Promise.all([redis.hgetall(keys.jobMetrics()), redis.hgetall(keys.extractMetrics())]);
  const out: JobMetrics = { jobs: [], extract: [] };
  for (const [field, count] of Object.entries(jobs)) {
    const [type = '', status = '', code = ''] = field.split('|');
    out.jobs.push({ type, status, code, count: Number(count) });
  }
  const formats = new Set(Object.keys(extract).map((f) => f.split('|')[0]!));
  for (const format of formats) {
    const get = (k: string): number => Number(extract[`${format}|${k}`] ?? 0);
    out.extract.push({
      format,
      count: get('count'),
      secondsSum: get('sum'),
      bytes: get('bytes'),
      buckets: EXTRACT_BUCKETS.map((_, i) => get(`b${i}`)),
    });
  }
  return out;
}
