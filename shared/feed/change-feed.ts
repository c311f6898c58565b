import { chunkSourceFields } from '../chunking/chunk-view.js';
import { GoneError } from '../errors.js';
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

/** What the scripts keep of a chunk's source beside a chunk.upserted. */
interface FeedSource {
  type: StoredSource['type'];
  content: string;
  title?: string;
  filename?: string;
  metadata?: string;
}

/** Values per event in the script's reply (id, kind, chunk id, documentId, chunk JSON, source JSON). */
const EVENT_WIDTH = 6;

/**
 * A knowledge base's change feed: the events the chunk-writing scripts
 * appended (a Redis stream on the knowledge base's slot), read in order
 * after a cursor. Each chunk.upserted carries the chunk as the API shows it,
 * with its source's fields as they were when it was written.
 */
export class ChangeFeed {
  constructor(
    private readonly redis: StoreRedis,
    private readonly keys: KeySpace,
  ) {}

  /** The events after `after` (from the start when undefined), at most `size`; 410 past retention. */
  async read(workspaceId: string, kbId: string, after: string | undefined, size: number): Promise<ChangesPage> {
    const from = after === undefined ? FEED_START : decodeCursor(after);
    const reply = await runScript(this.redis, this.keys, readChangesScript, { workspaceId, kbId, after: from, size });
    if (reply.kind === 'expired') throw new GoneError(RESYNC_MESSAGE.replace('{kbId}', kbId));
    if (reply.kind !== 'ok') throw resultError(reply.kind, { kbId });
    const data: ChangeEvent[] = [];
    let last = from;
    for (let i = 0; i + EVENT_WIDTH <= reply.events.length; i += EVENT_WIDTH) {
      const [id, kind, chunkId, documentId, chunkJson, sourceJson] = reply.events.slice(i, i + EVENT_WIDTH) as [string, string, string, string, string, string];
      last = id;
      data.push(kind === 'u' ? { type: 'chunk.upserted', chunk: withSource(chunkJson, sourceJson) } : { type: 'chunk.deleted', chunkId, documentId });
    }
    return { data, nextCursor: encodeCursor(last), hasMore: data.length > 0 && last !== reply.head };
  }

  /** The cursor after the newest event: where a consumer that has read everything up to now goes on from. */
  async headCursor(kbId: string): Promise<string> {
    const stream = this.keys.changes(kbId);
    if ((await this.redis.exists(stream)) === 0) return encodeCursor(FEED_START);
    // The stream keeps its last id even when trimming has emptied it.
    const info = (await this.redis.xinfo('STREAM', stream)) as unknown[];
    const at = info.indexOf('last-generated-id');
    return encodeCursor(at >= 0 ? String(info[at + 1]) : FEED_START);
  }
}

function withSource(chunkJson: string, sourceJson: string): Chunk {
  const chunk = JSON.parse(chunkJson) as Chunk;
  const s = JSON.parse(sourceJson) as FeedSource;
  const metadata = s.metadata ? (JSON.parse(s.metadata) as Metadata) : undefined;
  return { ...chunk, ...chunkSourceFields({ type: s.type, content: s.content, title: s.title, filename: s.filename, metadata }) };
}
