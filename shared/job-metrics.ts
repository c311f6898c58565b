import type { RedisClient } from './redis.js';
import { FORMAT_MIME } from './formats.js';

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

const jobsKey = (prefix: string): string => `${prefix}:{metrics}:jobs`;
const extractKey = (prefix: string): string => `${prefix}:{metrics}:extract`;
const MIME_FORMAT = new Map(Object.entries(FORMAT_MIME).map(([format, mime]) => [mime, format]));

/** The format label of a MIME type. */
export function formatLabel(mimeType: string | undefined): string {
  return (mimeType && MIME_FORMAT.get(mimeType)) ?? 'other';
}

/**
 * Counts a finished job in Redis, so the API's /metrics shows the whole
 * deployment however many worker replicas run.
 */
export async function recordOutcome(redis: RedisClient, prefix: string, o: JobOutcome): Promise<void> {
  const tx = redis.multi().hincrby(jobsKey(prefix), `${o.type}|${o.status}|${o.code ?? ''}`, 1);
  if (o.status === 'ready') {
    const f = formatLabel(o.mimeType);
    const key = extractKey(prefix);
    tx.hincrby(key, `${f}|count`, 1).hincrbyfloat(key, `${f}|sum`, o.seconds).hincrby(key, `${f}|bytes`, o.bytes ?? 0);
    EXTRACT_BUCKETS.forEach((le, i) => {
      if (o.seconds <= le) tx.hincrby(key, `${f}|b${i}`, 1);
    });
  }
  await tx.exec();
}

export async function readJobMetrics(redis: RedisClient, prefix: string): Promise<JobMetrics> {
  const [jobs, extract] = await Promise.all([redis.hgetall(jobsKey(prefix)), redis.hgetall(extractKey(prefix))]);
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
