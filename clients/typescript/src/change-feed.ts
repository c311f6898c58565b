import type { components } from './schema.js';
import { KbApiError } from './errors.js';

export type ChangeEvent = components['schemas']['ChangeEvent'];
export type ChangesPage = components['schemas']['ChangesPage'];
export type ChunkListing = components['schemas']['ChunkListing'];

/** One step of {@link followChanges}: apply its events in order, then keep its cursor. */
export interface FeedPage {
  /**
   * Drop every chunk held for the knowledge base before applying `events`:
   * the first page of a (re)load from the chunk listing, which comes as
   * `chunk.upserted` events. True at the start when no cursor was given,
   * and after a 410 (the cursor was older than the feed keeps).
   */
  reset: boolean;
  events: ChangeEvent[];
  /**
   * Where to follow on from (pass it as `after` next time). Undefined on the
   * pages of a load before its last: keep the cursor you had, since a load cut
   * short must start over, which the old cursor's 410 (or none) does.
   */
  cursor?: string;
  /** The feed was read to its end: nothing more happened yet. */
  caughtUp: boolean;
  /** The last event is `knowledge_base.deleted`: the iteration ends after this page. */
  deleted: boolean;
}

/** How {@link followChanges} reads. */
export interface FollowOptions {
  /** A cursor kept from an earlier page; left out, it starts by loading every chunk. */
  after?: string;
  /** Keep polling once caught up (default true); false ends the iteration at the feed's end. */
  follow?: boolean;
  /** Pause between polls once caught up, ms (default 2000). */
  intervalMs?: number;
  /** Events or chunks per request (default 500, at most 1000). */
  size?: number;
  /** Ends the iteration (without an error) when aborted. */
  signal?: AbortSignal;
}

/** The two reads the feed needs, so {@link followChanges} can run over any transport. */
export interface FeedReader {
  changes(after: string | undefined, size: number): Promise<ChangesPage>;
  listChunks(after: string | undefined, size: number): Promise<ChunkListing>;
}

/**
 * A knowledge base's changes as an async iterator of pages, for keeping a
 * copy (a vector store, a search index) in step: it loads every chunk from
 * the listing when it has no cursor, then follows `GET …/changes` from the
 * listing's `changesCursor`; a 410 (the cursor is older than the feed keeps)
 * loads the listing again with `reset`; `knowledge_base.deleted` is the last
 * page. Any other error answer is thrown as a {@link KbApiError}.
 */
export async function* followChanges(read: FeedReader, opts: FollowOptions = {}): AsyncGenerator<FeedPage, void, undefined> {
  const { follow = true, intervalMs = 2_000, size = 500, signal } = opts;
  let cursor = opts.after;
  for (;;) {
    if (signal?.aborted) return;
    if (cursor === undefined) {
      cursor = yield* load(read, size, signal);
      if (cursor === undefined) return;
      continue;
    }
    let page: ChangesPage;
    try {
      page = await read.changes(cursor, size);
    } catch (err) {
      if (err instanceof KbApiError && err.status === 410) {
        cursor = undefined;
        continue;
      }
      throw err;
    }
    const end = page.data.findIndex((e) => e.type === 'knowledge_base.deleted');
    const events = end === -1 ? page.data : page.data.slice(0, end + 1);
    cursor = page.nextCursor;
    yield { reset: false, events, cursor, caughtUp: !page.hasMore, deleted: end !== -1 };
    if (end !== -1) return;
    if (page.hasMore) continue;
    if (!follow || !(await pause(intervalMs, signal))) return;
  }
}

/** Yields the listing as `chunk.upserted` pages (the first with `reset`); the feed cursor to follow, or undefined when aborted. */
async function* load(read: FeedReader, size: number, signal: AbortSignal | undefined): AsyncGenerator<FeedPage, string | undefined, undefined> {
  let after: string | undefined;
  let first = true;
  let changesCursor: string | undefined;
  do {
    if (signal?.aborted) return undefined;
    const listing = await read.listChunks(after, size);
    // The feed position from before the listing began, so nothing written meanwhile is missed.
    changesCursor ??= listing.changesCursor;
    after = listing.nextCursor ?? undefined;
    const events: ChangeEvent[] = listing.data.map((chunk) => ({ type: 'chunk.upserted', chunk }));
    yield { reset: first, events, ...(after === undefined ? { cursor: changesCursor } : {}), caughtUp: false, deleted: false };
    first = false;
  } while (after !== undefined);
  return changesCursor;
}

/** Waits `ms`; false when `signal` aborted meanwhile. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve(!signal?.aborted);
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
