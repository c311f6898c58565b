import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { KbApiError, type ChangeEvent, type KbClient } from '../clients/typescript/src/index.js';

export interface WatchOptions {
  kbId: string;
  /** Read on from this cursor (a `nextCursor` printed or saved earlier). */
  after?: string;
  /** Where the cursor is kept after each page, and read from at start when `after` is not given. */
  cursorFile?: string;
  /** Stop once the feed is read to its end instead of waiting for more. */
  once?: boolean;
  /** One JSON object a line (the feed's events, and `{"type":"resync"}`), for programs. */
  json?: boolean;
  /** The wait between reads once the feed is read to its end (ms). */
  intervalMs: number;
  /** Events per request. */
  pageSize?: number;
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
  /** Ends the watch (Ctrl-C): the cursor reached is kept and printed. */
  signal?: AbortSignal;
}

/** How much of an upserted chunk's text a line shows. */
const PREVIEW = 60;

/** One event as a line: its type, the chunk and document ids, and the start of the chunk's text. */
export function eventLine(e: ChangeEvent): string {
  if (e.type === 'chunk.deleted') return `chunk.deleted   ${e.chunkId} ${e.documentId}`;
  if (e.type === 'knowledge_base.deleted') return `knowledge_base.deleted ${e.kbId}`;
  const text = e.chunk.text.replace(/\s+/g, ' ').trim();
  return `chunk.upserted  ${e.chunk.id} ${e.chunk.documentId} ${JSON.stringify(text.length > PREVIEW ? `${text.slice(0, PREVIEW)}…` : text)}`;
}

/**
 * Follows a knowledge base's change feed and prints each event, oldest first.
 * Without a cursor it starts from now (the chunk listing's `changesCursor`).
 * When the cursor is older than the feed keeps (410), it resyncs: it prints
 * `resync`, then every chunk of the listing as `chunk.upserted`, and follows
 * on from the listing's cursor, so a reader of the output that applies the
 * events in order ends with the knowledge base's chunks. When the knowledge
 * base is deleted it prints `knowledge_base.deleted <kbId>` (a reader drops
 * every chunk of it), removes the cursor file and stops with 0, whatever the
 * cursor's age. Returns the exit code.
 */
export async function watch(client: KbClient, opts: WatchOptions): Promise<number> {
  const size = opts.pageSize ?? 100;
  const print = (e: ChangeEvent) => opts.out.write(`${opts.json ? JSON.stringify(e) : eventLine(e)}\n`);
  let cursor = opts.after ?? (opts.cursorFile ? await readCursor(opts.cursorFile) : undefined);
  if (cursor === undefined) {
    cursor = (await client.listChunks(opts.kbId, undefined, 1)).changesCursor;
    opts.err.write(`following ${opts.kbId} from now (cursor ${cursor})\n`);
    await saveCursor(opts.cursorFile, cursor);
  }
  while (!opts.signal?.aborted) {
    let page;
    try {
      page = await client.changes(opts.kbId, cursor, size);
    } catch (err) {
      if (!(err instanceof KbApiError && err.status === 410)) throw err;
      opts.err.write(`cursor ${cursor} is older than the feed keeps (410): resyncing from the chunk listing\n`);
      cursor = await resync(client, opts, size);
      await saveCursor(opts.cursorFile, cursor);
      continue;
    }
    for (const e of page.data) print(e);
    if (page.data.some((e) => e.type === 'knowledge_base.deleted')) {
      opts.err.write(`knowledge base ${opts.kbId} was deleted: its chunks are gone; stopping\n`);
      if (opts.cursorFile) await rm(opts.cursorFile, { force: true });
      return 0;
    }
    if (page.nextCursor !== cursor) await saveCursor(opts.cursorFile, page.nextCursor);
    cursor = page.nextCursor;
    if (page.hasMore) continue;
    if (opts.once) break;
    await sleep(opts.intervalMs, undefined, { signal: opts.signal }).catch(() => undefined);
  }
  opts.err.write(`stopped at cursor ${cursor} (resume with --after ${cursor})\n`);
  return 0;
}

/** Prints `resync` and every chunk as an upsert; returns the cursor to follow on from. */
async function resync(client: KbClient, opts: WatchOptions, size: number): Promise<string> {
  opts.out.write(opts.json ? `${JSON.stringify({ type: 'resync' })}\n` : 'resync\n');
  let after: string | undefined;
  let changesCursor: string | undefined;
  do {
    const page = await client.listChunks(opts.kbId, after, size);
    // The first page's cursor is from before the listing began: nothing written meanwhile is missed.
    changesCursor ??= page.changesCursor;
    for (const chunk of page.data) {
      const e: ChangeEvent = { type: 'chunk.upserted', chunk };
      opts.out.write(`${opts.json ? JSON.stringify(e) : eventLine(e)}\n`);
    }
    after = page.nextCursor ?? undefined;
  } while (after);
  return changesCursor;
}

async function readCursor(file: string): Promise<string | undefined> {
  try {
    return (await readFile(file, 'utf8')).trim() || undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes the cursor whole (a new file renamed over the old), so an interrupted write never leaves half of one. */
async function saveCursor(file: string | undefined, cursor: string): Promise<void> {
  if (!file) return;
  await writeFile(`${file}.tmp`, `${cursor}\n`);
  await rename(`${file}.tmp`, file);
}
