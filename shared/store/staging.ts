import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../redis/redis.js';

/**
 * Large values are read back in slices of this many bytes, and lists written
 * in runs of about as many: one GET of a 5 MB string held Redis's only thread
 * for 17 to 38 ms in SLOWLOG on a loaded machine, every tenant waiting.
 */
export const SLICE_BYTES = 128 * 1024;
/** List entries per command at most, beside the byte bound. */
const SLICE_ENTRIES = 1000;
/**
 * Life of a staged value, refreshed by each slice: the writer renames it into
 * place within seconds, so a crashed writer's staging is gone a few minutes
 * later. Not counted against the workspace for that reason: at most one
 * write's worth per running job or request, and only for this long.
 */
export const STAGED_TTL_SECONDS = 300;

/** A fresh nonce naming one write's staged keys. */
export function stageNonce(): string {
  return randomBytes(9).toString('base64url');
}

/** UTF-8 bytes of a string. */
export const utf8Bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/** `items` in runs of at most SLICE_ENTRIES entries and about SLICE_BYTES bytes. */
export function listSlices(items: readonly string[]): string[][] {
  const out: string[][] = [];
  let run: string[] = [];
  let bytes = 0;
  for (const item of items) {
    const b = utf8Bytes(item);
    if (run.length > 0 && (run.length >= SLICE_ENTRIES || bytes + b > SLICE_BYTES)) {
      out.push(run);
      run = [];
      bytes = 0;
    }
    run.push(item);
    bytes += b;
  }
  if (run.length > 0) out.push(run);
  return out;
}

/** What was staged: each key's size, for the script that takes the keys to check they are whole. */
export interface StagedValue {
  key: string;
  /** Bytes of a string, entries of a list. */
  size: number;
}

/**
 * Writes `value` to `key` in one SET, with its expiry. Redis reads a large
 * argument straight into the string it keeps, over as many socket reads as
 * it takes, and the SET only hands it over: 15 to 50 µs for 5 MB (SLOWLOG),
 * where APPENDs in slices grow the string by reallocation (one of them took
 * 13 ms as it passed 4 MB, each later one 0.7 ms) and a SETRANGE that sizes
 * it first zeroes it all in one command (16 ms).
 */
export async function stageString(redis: RedisClient, key: string, value: string, ttlSeconds = STAGED_TTL_SECONDS): Promise<StagedValue> {
  await redis.set(key, value, 'EX', ttlSeconds);
  return { key, size: utf8Bytes(value) };
}

/** Writes `items` to the list `key` in slices, each refreshing its expiry; an empty list makes no key. */
export async function stageList(redis: RedisClient, key: string, items: readonly string[], ttlSeconds = STAGED_TTL_SECONDS): Promise<StagedValue> {
  const pipe = redis.pipeline().del(key);
  for (const run of listSlices(items)) pipe.rpush(key, ...run).expire(key, ttlSeconds);
  await execAll(pipe);
  return { key, size: items.length };
}

/** A string value read in slices (null when the key is missing). */
export async function readString(redis: RedisClient, key: string): Promise<string | null> {
  const length = await redis.strlen(key);
  if (length === 0) return (await redis.exists(key)) ? '' : null;
  const pipe = redis.pipeline();
  for (let at = 0; at < length; at += SLICE_BYTES) pipe.getrangeBuffer(key, at, Math.min(length, at + SLICE_BYTES) - 1);
  const parts = (await execAll(pipe)) as Buffer[];
  // Slices are cut at bytes, not characters: decoded once joined.
  return Buffer.concat(parts).toString('utf8');
}

/** A list read in slices of SLICE_ENTRIES entries. */
export async function readList(redis: RedisClient, key: string): Promise<string[]> {
  const length = await redis.llen(key);
  if (length === 0) return [];
  const pipe = redis.pipeline();
  for (let at = 0; at < length; at += SLICE_ENTRIES) pipe.lrange(key, at, at + SLICE_ENTRIES - 1);
  return ((await execAll(pipe)) as string[][]).flat();
}

/** Runs a pipeline; throws its first error. */
async function execAll(pipe: ReturnType<RedisClient['pipeline']>): Promise<unknown[]> {
  const results = (await pipe.exec()) ?? [];
  return results.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}

/** A source's extraction as a write stages it: the keys' names and sizes. */
export interface StagedWrite {
  nonce: string;
  text: StagedValue;
  markdown: StagedValue;
  chunks: StagedValue;
  feed: StagedValue;
  /** Bytes of text, Markdown and chunk entries, as the source's `extractedBytes` counts them. */
  extractedBytes: number;
  /** Bytes of the feed entries, counted as the source's `emitBytes` until they are emitted. */
  feedBytes: number;
}

/** Chunk entries and their feed entries, staged for a re-chunk. */
export interface StagedChunks {
  nonce: string;
  chunks: StagedValue;
  feed: StagedValue;
  /** Bytes of the chunk entries. */
  chunkBytes: number;
  /** Bytes of the feed entries, counted as the source's `emitBytes` until they are emitted. */
  feedBytes: number;
}
