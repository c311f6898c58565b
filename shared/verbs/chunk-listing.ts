import { ValidationError } from '../errors.js';
import { chunkView } from '../chunking/chunk-view.js';
import type { Chunk } from '../schemas/chunk.js';
import type { ChangeFeed } from '../feed/change-feed.js';
import { assertOwned, type KbDeps } from './knowledge-bases.js';

/**
 * Where a listing goes on: a source (by id, with its position as a hint) and
 * a chunk position in it; `f`, the change-feed cursor taken when the listing began.
 */
interface ListingPosition {
  d: string;
  s: number;
  c: number;
  f?: string;
}

/** A page of the listing and the cursor to continue from (null at the end). */
export interface ChunkListingPage {
  data: Chunk[];
  nextCursor: string | null;
  /** Where to follow the change feed from once the listing is read: its position when the listing began. */
  changesCursor: string;
}

const encode = (p: ListingPosition): string => Buffer.from(JSON.stringify(p)).toString('base64url');

function decode(cursor: string): ListingPosition {
  try {
    const p = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as ListingPosition;
    const feed = p.f === undefined || typeof p.f === 'string';
    if (typeof p.d === 'string' && Number.isSafeInteger(p.s) && p.s >= 0 && Number.isSafeInteger(p.c) && p.c >= 0 && feed) return p;
  } catch {
    // falls through to the refusal below
  }
  throw new ValidationError({ after: 'is not a cursor this listing returned' });
}

/**
 * A page of every chunk of a knowledge base's ready sources, in source order
 * and chunk order, each as the API shows chunks (stable id, source fields,
 * metadata). The cursor names the source by id, so sources added or deleted
 * between pages do not make the listing skip or repeat the others; when the
 * source a cursor names was deleted, the listing goes on from where it was.
 * Every page names the change feed's position from before the first page was
 * read: a consumer that loaded the listing follows the feed from there, and
 * the events it then sees again (upserts and deletes by id) change nothing.
 */
export async function listKbChunks(
  deps: KbDeps,
  feed: ChangeFeed,
  workspaceId: string,
  kbId: string,
  after: string | undefined,
  size: number,
): Promise<ChunkListingPage> {
  await assertOwned(deps, workspaceId, kbId);
  const pos = after === undefined ? undefined : decode(after);
  const changesCursor = pos?.f ?? (await feed.headCursor(kbId));
  const ids = await deps.kbs.sourceIds(kbId);
  let at = 0;
  let offset = 0;
  if (pos !== undefined) {
    const found = ids.indexOf(pos.d);
    if (found >= 0) [at, offset] = [found, pos.c];
    else at = Math.min(pos.s, ids.length);
  }
  const data: Chunk[] = [];
  for (; at < ids.length; at++, offset = 0) {
    const source = await deps.kbs.getSource(kbId, ids[at]!);
    if (!source || source.status !== 'ready') continue;
    // One more than needed tells whether this source has chunks left after the page.
    const want = size - data.length;
    const chunks = await deps.kbs.chunkRange(kbId, source.documentId, offset, want + 1);
    data.push(...chunks.slice(0, want).map((c) => chunkView(kbId, source, c)));
    if (data.length === size) {
      const more = chunks.length > want || at + 1 < ids.length;
      const next = chunks.length > want ? { d: source.documentId, s: at, c: offset + want } : { d: ids[at + 1] ?? '', s: at + 1, c: 0 };
      return { data, nextCursor: more ? encode({ ...next, f: changesCursor }) : null, changesCursor };
    }
  }
  return { data, nextCursor: null, changesCursor };
}
