import type { ReadChunk } from '../chunking/chunk-view.js';
import type { StoredChunk } from '../schemas/chunk.js';
import type { SourceStatus } from '../sources/lifecycle.js';
import type { StoreRedis } from './commands.js';
import { parseSource, type StoredSource } from './kb-records.js';
import type { KeySpace } from './keys.js';

/** Source ids read per round trip when a list is filtered by status. */
const LIST_SLICE = 500;

/** Reads of a knowledge base's sources: records, pages of them, and what their extraction left. */
export class SourcePages {
  constructor(
    private readonly redis: StoreRedis,
    private readonly keys: KeySpace,
  ) {}

  /**
   * A page of a knowledge base's sources in order, optionally only those of
   * one status. Without a status it reads just the page; with one it walks the
   * source list in slices, reading only each source's status until the page
   * is full, and counts the rest.
   */
  async listSources(kbId: string, page: number, size: number, status?: SourceStatus): Promise<{ items: StoredSource[]; total: number }> {
    const list = this.keys.sourceIds(kbId);
    const start = page * size;
    if (!status) {
      const [total, ids] = await Promise.all([
        this.redis.llen(list),
        start > Number.MAX_SAFE_INTEGER - size ? Promise.resolve([]) : this.redis.lrange(list, start, start + size - 1),
      ]);
      return { items: await this.readSources(kbId, ids), total };
    }
    const wanted: string[] = [];
    let total = 0;
    for (let at = 0; ; at += LIST_SLICE) {
      const ids = await this.redis.lrange(list, at, at + LIST_SLICE - 1);
      if (ids.length === 0) break;
      const pipe = this.redis.pipeline();
      for (const id of ids) pipe.hget(this.keys.source(kbId, id), 'status');
      const statuses = (await pipe.exec()) ?? [];
      ids.forEach((id, i) => {
        if (statuses[i]?.[1] !== status) return;
        if (total >= start && wanted.length < size) wanted.push(id);
        total += 1;
      });
      if (ids.length < LIST_SLICE) break;
    }
    return { items: await this.readSources(kbId, wanted), total };
  }

  /**
   * The records of these sources, in this order; a source deleted meanwhile
   * is left out. Those in `known` are not read: the caller holds them.
   */
  async readSources(kbId: string, ids: string[], known?: ReadonlyMap<string, StoredSource>): Promise<StoredSource[]> {
    const unread = known && known.size > 0 ? ids.filter((id) => !known.has(id)) : ids;
    const read = await this.readRecords(kbId, unread);
    return ids.map((id) => known?.get(id) ?? read.get(id) ?? null).filter((s): s is StoredSource => s !== null);
  }

  /** The records of these sources by id, in one pipeline; null for a source that is gone. */
  async readRecords(kbId: string, ids: readonly string[]): Promise<Map<string, StoredSource | null>> {
    const read = new Map<string, StoredSource | null>();
    if (ids.length === 0) return read;
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hgetall(this.keys.source(kbId, id));
    const rows = (await pipe.exec()) ?? [];
    rows.forEach(([err, h], i) => {
      if (err) throw err;
      read.set(ids[i]!, parseSource(h as Record<string, string>));
    });
    return read;
  }

  /** One source's record, or null when it is gone. */
  async getSource(kbId: string, documentId: string): Promise<StoredSource | null> {
    return parseSource(await this.redis.hgetall(this.keys.source(kbId, documentId)));
  }

  /** A ready source's extracted text. */
  async getText(kbId: string, documentId: string): Promise<string | null> {
    return this.redis.get(this.keys.text(kbId, documentId));
  }

  /** The extraction as Markdown (sources written before Markdown was kept have only their text). */
  async getMarkdown(kbId: string, documentId: string): Promise<string | null> {
    const [md, text] = await this.redis.mget(this.keys.markdown(kbId, documentId), this.keys.text(kbId, documentId));
    return md ?? text ?? null;
  }

  /** A page of a source's chunks with their text, read from the Markdown by byte range (see chunkView for the API's shape). */
  async chunkPage(kbId: string, documentId: string, page: number, size: number): Promise<{ items: ReadChunk[]; total: number }> {
    const start = page * size;
    const [total, items] = await Promise.all([
      this.redis.llen(this.keys.chunks(kbId, documentId)),
      start > Number.MAX_SAFE_INTEGER - size ? Promise.resolve([]) : this.chunkRange(kbId, documentId, start, size),
    ]);
    return { items, total };
  }

  /** Up to `count` of a source's chunks from position `start`, with their text. */
  async chunkRange(kbId: string, documentId: string, start: number, count: number): Promise<ReadChunk[]> {
    const rows = await this.redis.lrange(this.keys.chunks(kbId, documentId), start, start + count - 1);
    const entries = rows.map((r) => JSON.parse(r) as StoredChunk);
    const pipe = this.redis.pipeline();
    const mdKey = this.keys.markdown(kbId, documentId);
    for (const e of entries) pipe.getrangeBuffer(mdKey, e.byteStart, e.byteEnd - 1);
    const texts = entries.length > 0 ? ((await pipe.exec()) ?? []) : [];
    return entries.map(({ byteStart: _s, byteEnd: _e, ...c }, i) => ({ ...c, text: (texts[i]?.[1] as Buffer | undefined)?.toString('utf8') ?? '' }));
  }

  /** A knowledge base's source ids, in order. */
  async sourceIds(kbId: string): Promise<string[]> {
    return this.redis.lrange(this.keys.sourceIds(kbId), 0, -1);
  }

  /** The uploaded bytes of a file source, while they are kept. */
  async readBlob(kbId: string, documentId: string): Promise<Buffer | null> {
    return this.redis.getBuffer(this.keys.blob(kbId, documentId));
  }

  /** The settle number a source's last finish gave its knowledge base, if that finish settled it. */
  async settledBy(kbId: string, documentId: string): Promise<number | undefined> {
    const seq = await this.redis.hget(this.keys.source(kbId, documentId), 'settledSeq');
    return seq ? Number(seq) : undefined;
  }
}
