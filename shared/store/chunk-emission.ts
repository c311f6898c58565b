import type { StoredChunk } from '../schemas/chunk.js';
import { feedEntries } from '../feed/feed-entries.js';
import { feedRange, type FeedRange } from '../feed/cursor.js';
import { runScript, type StoreRedis } from './commands.js';
import type { KeySpace } from './keys.js';
import { dropChunksScript } from './scripts/delete-scripts.js';
import { emitChunksScript, type EmitMarker } from './scripts/emit-scripts.js';
import { stageList, stageNonce, stageString, utf8Bytes, type StagedChunks, type StagedValue, type StagedWrite } from './staging.js';

/**
 * Below this many bytes of text, Markdown, chunk entries and feed entries
 * together, a write goes inside its script as one argument; past it, it is
 * staged (see staging.ts) and its feed events emitted in batches. A script's
 * argument stays under SCRIPT_ARG_MAX_BYTES, its cost under a few ms.
 */
export const INLINE_MAX_BYTES = 128 * 1024;
/** What no store script is sent as its argument, about: INLINE_MAX_BYTES and the write's record fields. */
export const SCRIPT_ARG_MAX_BYTES = 256 * 1024;
/** Pending feed entries one emitChunks batch reads, and chunk ids one deletion batch scans. */
export const EMIT_BATCH = 64;
/** Bytes of feed entries one batch emits at most (past its first entry). */
export const EMIT_BATCH_BYTES = 128 * 1024;

/**
 * Stages chunk entries and the feed entries of those chunks (cut from
 * `markdown`) under `nonce`, in bounded RPUSH runs.
 */
export async function stageChunks(
  redis: StoreRedis,
  keys: KeySpace,
  target: { kbId: string; documentId: string },
  markdown: string,
  chunks: readonly string[],
  nonce = stageNonce(),
): Promise<StagedChunks> {
  const key = (part: string) => keys.staged(target.kbId, target.documentId, nonce, part);
  const feed = feedEntries(target.kbId, target.documentId, markdown, chunks.map((c) => JSON.parse(c) as StoredChunk)).map((e) => JSON.stringify(e));
  const [chunkValue, feedValue] = await Promise.all([stageList(redis, key('chunks'), chunks), stageList(redis, key('feed'), feed)]);
  return {
    nonce,
    chunks: chunkValue,
    feed: feedValue,
    chunkBytes: chunks.reduce((n, c) => n + utf8Bytes(c), 0),
    feedBytes: feed.reduce((n, e) => n + utf8Bytes(e), 0),
  };
}

/** Whether a write of these values is past INLINE_MAX_BYTES (its feed entries are about as large as its Markdown again). */
export function needsStaging(text: string, markdown: string, chunks: readonly string[]): boolean {
  let bytes = text.length + (markdown === text ? 0 : markdown.length) * 2;
  for (const c of chunks) bytes += c.length;
  return bytes > INLINE_MAX_BYTES / 3;
}

/**
 * Stages a source's text, Markdown, chunk entries and the feed entries of its
 * chunks under a fresh nonce, each in bounded slices (keys on the knowledge
 * base's slot, expiring on their own).
 */
export async function stageExtraction(
  redis: StoreRedis,
  keys: KeySpace,
  target: { kbId: string; documentId: string },
  value: { text: string; markdown: string; chunks: readonly string[] },
): Promise<StagedWrite> {
  const nonce = stageNonce();
  const key = (part: string) => keys.staged(target.kbId, target.documentId, nonce, part);
  const [text, markdown, staged] = await Promise.all([
    stageString(redis, key('text'), value.text),
    stageString(redis, key('md'), value.markdown),
    stageChunks(redis, keys, target, value.markdown, value.chunks, nonce),
  ]);
  const extractedBytes = text.size + markdown.size + staged.chunkBytes;
  return { nonce, text, markdown, chunks: staged.chunks, feed: staged.feed, extractedBytes, feedBytes: staged.feedBytes };
}

/** Drops a write's staged keys (they expire anyway). */
export async function dropStaged(redis: StoreRedis, staged: StagedWrite | StagedChunks): Promise<void> {
  const strings = 'text' in staged ? [staged.text.key, staged.markdown.key] : [];
  await redis.unlink(...strings, staged.chunks.key, staged.feed.key).catch(() => undefined);
}

/** A marker as the record keeps it (`seq:phase:at`), or undefined. */
export function parseEmitMarker(raw: string | null | undefined): EmitMarker | undefined {
  const m = raw ? /^(\d+):([ud]):(\d+)$/.exec(raw) : null;
  return m ? { seq: Number(m[1]), phase: m[2] as 'u' | 'd', at: m[3]! } : undefined;
}

/**
 * Emits the feed events of a large write of a source's chunks from `marker`
 * on, one bounded script a batch, each advancing the record's marker; stops
 * when the write is superseded or the source is gone. Returns the feed range
 * written. `maxBatches` stops early, as a crash would (tests).
 */
export async function emitChunks(
  redis: StoreRedis,
  keys: KeySpace,
  target: { kbId: string; documentId: string },
  marker: EmitMarker,
  maxBatches = Infinity,
): Promise<FeedRange | undefined> {
  let from = '';
  let to = '';
  let at: EmitMarker | undefined = marker;
  for (let batches = 0; at && batches < maxBatches; batches++) {
    const reply = await runScript(redis, keys, emitChunksScript, { ...target, marker: at, count: EMIT_BATCH, maxBytes: EMIT_BATCH_BYTES });
    if (reply.kind !== 'ok') break;
    if (reply.feedTo !== '') {
      if (from === '') from = reply.feedFrom;
      to = reply.feedTo;
    }
    at = parseEmitMarker(reply.next);
  }
  return to === '' ? undefined : { from, to };
}

/** The union of two feed ranges written one after the other. */
export function joinRanges(a: FeedRange | undefined, b: FeedRange | undefined): FeedRange | undefined {
  if (!a) return b;
  if (!b) return a;
  return { from: a.from, to: b.to };
}

/**
 * Writes the chunk.deleted events a deleted source of many chunks left to
 * write (see dropChunks.lua), one bounded script a batch; the range written.
 */
export async function dropChunks(redis: StoreRedis, keys: KeySpace, kbId: string, documentId: string): Promise<FeedRange | undefined> {
  let changes: FeedRange | undefined;
  for (;;) {
    const reply = await runScript(redis, keys, dropChunksScript, { kbId, documentId });
    changes = joinRanges(changes, feedRange(reply.feedFrom, reply.feedTo));
    if (reply.left === 0) return changes;
  }
}
