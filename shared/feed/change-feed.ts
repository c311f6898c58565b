import { chunkSourceFields } from '../chunking/chunk-view.js';
import { GoneError, ValidationError } from '../errors.js';
import type { Chunk } from '../schemas/chunk.js';
import type { ChangeEvent, ChangesPage } from '../schemas/changes.js';
import type { Metadata } from '../schemas/metadata.js';
import type { StoredSource } from '../store/kb-records.js';
import type { KeySpace } from '../store/keys.js';
import { runScript, type StoreRedis } from '../store/commands.js';
import { readChangesScript } from '../store/scripts/changes-scripts.js';
import { resultError } from '../store/scripts/result-error.js';
import { decodeCursor, encodeCursor, FEED_START } from './cursor.js';

/** The message of a 410: what a consumer whose cursor is past retention does next. */
export const RESYNC_MESSAGE =
  'This cursor is older than the change feed keeps. Resync: read every chunk from GET /v1/knowledge-bases/{kbId}/chunks, then follow the feed from the changesCursor that listing returns.';

/**
 * What an event keeps of its chunk's source: the fields the chunk listing
 * shows (see chunkSourceFields). Events written before carry the source's
 * type and content instead, and are read the old way until they age out.
 */
interface FeedSource {
  title?: string;
  url?: string;
  filename?: string;
  metadata?: string;
  type?: StoredSource['type'];
  content?: string;
}

/** Events one read script returns at most (about 2 ms of Redis time for small events). */
const EVENTS_PER_SCRIPT = 200;
/** What an event costs beside its chunk and source JSON, as the feed scripts count it (FEED_EVENT_OVERHEAD). */
const EVENT_OVERHEAD = 64;

/**
 * A knowledge base's change feed: the events the chunk-writing scripts
 * appended (a Redis stream on the knowledge base's slot), read in order
 * after a cursor. Each chunk.upserted carries the chunk as the API shows it,
 * with its source's fields as they were when it was written; the last event
 * of a deleted knowledge base's feed is knowledge_base.deleted.
 */
export class ChangeFeed {
  constructor(
    private readonly redis: StoreRedis,
    private readonly keys: KeySpace,
  ) {}

  /**
   * The events after `after` (from the start when undefined), at most `size`
   * and about a MiB of events (the retention's `pageMaxBytes`); 410 past retention, 400 for a cursor of
   * another knowledge base or ahead of the feed.
   */
  async read(workspaceId: string, kbId: string, after: string | undefined, size: number): Promise<ChangesPage> {
    const from = after === undefined ? FEED_START : decodeCursor(after, 'after', kbId);
    const budget = this.keys.changeRetention.pageMaxBytes;
    const data: ChangeEvent[] = [];
    let last = from;
    let head = from;
    let bytes = 0;
    // A page is read in slices, each one short script: a 1,000-event page never holds Redis for long.
    while (data.length < size && bytes < budget) {
      const ask = Math.min(size - data.length, EVENTS_PER_SCRIPT);
      const reply = await runScript(this.redis, this.keys, readChangesScript, { workspaceId, kbId, after: last, size: ask, maxBytes: budget - bytes });
      if (reply.kind === 'expired' && data.length > 0) break;
      if (reply.kind === 'expired') throw new GoneError(RESYNC_MESSAGE.replace('{kbId}', kbId));
      if (reply.kind === 'ahead') throw new ValidationError({ after: 'is not a cursor of this change feed' });
      if (reply.kind !== 'ok') throw resultError(reply.kind, { kbId });
      head = reply.head;
      for (const { id, kind, chunkId, documentId, chunk, source } of reply.events) {
        last = id;
        bytes += chunk.length + source.length + EVENT_OVERHEAD;
        if (kind === 'u') data.push({ type: 'chunk.upserted', chunk: withSource(chunk, source) });
        else if (kind === 'd') data.push({ type: 'chunk.deleted', chunkId, documentId });
        else if (kind === 'x') data.push({ type: 'knowledge_base.deleted', kbId });
      }
      if (reply.events.length < ask) break;
    }
    return { data, nextCursor: encodeCursor(last, kbId), hasMore: data.length > 0 && last !== head };
  }

  /** The cursor after the newest event: where a consumer that has read everything up to now goes on from. */
  async headCursor(kbId: string): Promise<string> {
    return encodeCursor(await this.head(kbId), kbId);
  }

  /**
   * The stream id of the feed's newest event (FEED_START for none), in one
   * command: the head its writing scripts keep in the feed's info hash.
   */
  async head(kbId: string): Promise<string> {
    const head = await this.redis.hget(this.keys.changesInfo(kbId), 'head');
    if (head) return head;
    // A feed last written before the head was kept in its info: the stream keeps its last id even when trimming has emptied it.
    const stream = this.keys.changes(kbId);
    if ((await this.redis.exists(stream)) === 0) return FEED_START;
    const info = (await this.redis.xinfo('STREAM', stream)) as unknown[];
    const at = info.indexOf('last-generated-id');
    return at >= 0 ? String(info[at + 1]) : FEED_START;
  }
}

function withSource(chunkJson: string, sourceJson: string): Chunk {
  const chunk = JSON.parse(chunkJson) as Chunk;
  const s = JSON.parse(sourceJson) as FeedSource;
  const metadata = s.metadata ? (JSON.parse(s.metadata) as Metadata) : undefined;
  if (s.type !== undefined) return { ...chunk, ...chunkSourceFields({ type: s.type, content: s.content ?? '', title: s.title, filename: s.filename, metadata }) };
  return {
    ...chunk,
    ...(s.title ? { title: s.title } : {}),
    ...(s.url !== undefined ? { url: s.url } : {}),
    ...(s.filename !== undefined ? { filename: s.filename } : {}),
    ...(metadata && Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}
