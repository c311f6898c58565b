import { chunkId } from '../chunking/chunk-id.js';
import type { ReadChunk } from '../chunking/chunk-view.js';
import type { ChangeFeed } from '../feed/change-feed.js';
import { decodeCursor, encodeCursor, FEED_START } from '../feed/cursor.js';
import { AppError, UnavailableError, ValidationError } from '../errors.js';
import type { StoredChunk } from '../schemas/chunk.js';
import type { StoreRedis } from '../store/commands.js';
import type { KbStore } from '../store/kb-store.js';
import type { KeySpace } from '../store/keys.js';
import { readHits, type RankRequest, type RankedChunk } from './hit-reader.js';
import { dropLegacyIndex } from './legacy-index.js';
import { MemoryIndex } from './memory-index.js';
import { loadStopWords } from './stopwords.js';
import { loadStemmer, words, type Stem, type StemmerName } from './tokenize.js';
import { KB_FIELDS } from '../sources/lifecycle.js';

/** Chunks read per command while an index is built (a slice of a source's chunk list, then their texts). */
export const CHUNK_BATCH = 500;
/** Bytes of a source's Markdown read per command while an index is built (a slice's texts, one range). */
export const TEXT_SPAN = 1024 * 1024;
/** Source ids read per command while an index is built. */
export const SOURCE_BATCH = 1000;
/** Feed events read per call while an index catches up. */
export const FEED_BATCH = 200;
/** Query terms used at most: a pasted paragraph is still one bounded search. */
export const MAX_QUERY_TERMS = 32;
/** Default of SEARCH_INDEX_CACHE_MB. */
export const DEFAULT_INDEX_CACHE_BYTES = 256 * 1024 * 1024;
/** Why a knowledge base cannot be searched: its index alone would pass the process's budget. */
const TOO_LARGE = "This knowledge base's search index would take more memory than the API may give search indexes (SEARCH_INDEX_CACHE_MB).";

export interface SearchIndexOptions {
  stemmer: StemmerName;
  /** Bytes the indexes of one process may take together (least recently searched dropped first). */
  cacheBytes?: number;
}

/**
 * Each knowledge base's search index, held in the API process (MemoryIndex)
 * and kept from the change feed: nothing of it is in Redis, so a search
 * sends Redis only short reads (the feed's head, source records, the hits'
 * entries and texts) and ranks on the process's own thread.
 *
 * An index is built on a knowledge base's first search from its chunk
 * listing, read in slices, after taking the feed's head; it then applies
 * the feed's events after that head (a chunk written meanwhile is applied
 * twice, the same way). Before each search it applies the events it has
 * not seen. When the feed no longer holds its position (past retention),
 * or a hit's chunk is not where the index says while the feed has not
 * moved, the index is dropped and built again from the chunks. Every
 * replica caught up to the same position holds the same chunks and so
 * ranks alike. Indexes are dropped least recently searched first past the
 * process's byte budget.
 */
export class SearchIndex {
  private readonly cacheBytes: number;
  private readonly indexes = new Map<string, MemoryIndex>();
  private readonly pending = new Map<string, Promise<MemoryIndex>>();
  /** Knowledge bases whose index of the earlier layout in Redis has been looked for. */
  private readonly legacyChecked = new Set<string>();

  constructor(
    readonly redis: StoreRedis,
    private readonly keys: KeySpace,
    private readonly feed: ChangeFeed,
    private readonly kbs: KbStore,
    readonly stemmer: StemmerName,
    opts: { cacheBytes?: number } = {},
  ) {
    this.cacheBytes = opts.cacheBytes ?? DEFAULT_INDEX_CACHE_BYTES;
  }

  private stemFn: Stem | undefined;
  private stopWords: ReadonlySet<string> | undefined;

  /** The stemmer's function, loaded on first use. */
  async stem(): Promise<Stem> {
    this.stemFn ??= await loadStemmer(this.stemmer);
    return this.stemFn;
  }

  /**
   * A query's terms, stemmed, each once, in the query's order: its words
   * without the stop words of the stemmer's language (all of them when
   * nothing else is left), at most MAX_QUERY_TERMS.
   */
  async queryTerms(query: string): Promise<string[]> {
    const stem = await this.stem();
    this.stopWords ??= await loadStopWords(this.stemmer);
    const all = words(query).map((w) => w.word);
    const kept = all.filter((w) => !this.stopWords!.has(w));
    return [...new Set((kept.length > 0 ? kept : all).map(stem))].slice(0, MAX_QUERY_TERMS);
  }

  /** Bytes the indexes this process holds take, about. */
  get heldBytes(): number {
    let sum = 0;
    for (const idx of this.indexes.values()) sum += idx.bytes;
    return sum;
  }

  /** Forgets a knowledge base's index (its next search builds it again). */
  forget(kbId: string): void {
    this.indexes.delete(kbId);
  }

  /**
   * The best chunks for a query's terms, with their sources and texts, from
   * the index caught up to the feed's head. A hit whose chunk moved is left
   * out and the search runs once more: on the index caught up again when the
   * feed moved, else on one built again from the chunks.
   */
  async rank(workspaceId: string, kbId: string, req: RankRequest): Promise<RankedChunk[]> {
    for (let attempt = 0; ; attempt++) {
      const idx = await this.current(workspaceId, kbId);
      const { hits, moved } = await readHits(this.redis, this.keys, kbId, idx, req);
      if (!moved || attempt > 0) return hits;
      if ((await this.feed.head(kbId)) === idx.position && this.indexes.get(kbId) === idx) this.forget(kbId);
    }
  }

  /** The index of a knowledge base caught up to its feed's head; concurrent searches share one catch-up. */
  async current(workspaceId: string, kbId: string): Promise<MemoryIndex> {
    let p = this.pending.get(kbId);
    if (!p) {
      p = this.update(workspaceId, kbId).finally(() => this.pending.delete(kbId));
      this.pending.set(kbId, p);
    }
    return p;
  }

  private async update(workspaceId: string, kbId: string): Promise<MemoryIndex> {
    if (!this.legacyChecked.has(kbId)) {
      await dropLegacyIndex(this.redis, this.keys, kbId);
      if (this.legacyChecked.size >= 100_000) this.legacyChecked.clear();
      this.legacyChecked.add(kbId);
    }
    let idx = this.indexes.get(kbId);
    if (idx) idx = await this.catchUp(workspaceId, kbId, idx);
    for (let tries = 0; !idx; tries++) {
      if (tries >= 3) throw new Error(`The search index of ${kbId} fell behind the change feed's retention three times while it was built`);
      idx = await this.catchUp(workspaceId, kbId, await this.build(kbId));
    }
    this.indexes.delete(kbId);
    this.indexes.set(kbId, idx);
    this.evict(kbId);
    return idx;
  }

  /** Drops the least recently searched indexes past the budget (never the one being searched). */
  private evict(keep: string): void {
    let total = this.heldBytes;
    for (const [kbId, idx] of this.indexes) {
      if (total <= this.cacheBytes) return;
      if (kbId === keep) continue;
      this.indexes.delete(kbId);
      total -= idx.bytes;
    }
  }

  /**
   * An index of every chunk of the knowledge base's ready sources, at the feed
   * position taken first. The next slice is read while one is indexed.
   */
  private async build(kbId: string): Promise<MemoryIndex> {
    const stem = await this.stem();
    const idx = new MemoryIndex(await this.feed.head(kbId));
    const slices = this.slices(kbId);
    const next = () => {
      const p = slices.next();
      // Handled where it is awaited; a read left unawaited after a failure is no unhandled rejection.
      p.catch(() => undefined);
      return p;
    };
    for (let read = next(); ; ) {
      const slice = await read;
      if (slice.done) break;
      read = next();
      const { documentId, chunks } = slice.value;
      for (let i = 0; i < chunks.length; i++) {
        const c = chunks[i]!;
        // The chunk's id as chunkView gives it, without the rest of the chunk as the API shows it.
        idx.upsert({ id: chunkId(kbId, documentId, c.text, c.occurrence), documentId, index: c.index, text: c.text, headings: c.headings }, stem);
        // Other requests get the event loop between a hundred chunks (up to a few MB of text).
        if (i % 100 === 99) await new Promise((r) => setImmediate(r));
      }
      if (idx.bytes > this.cacheBytes) throw new UnavailableError(TOO_LARGE, 3600);
    }
    return idx;
  }

  /** The chunks of the knowledge base's ready sources, CHUNK_BATCH at a time. */
  private async *slices(kbId: string): AsyncGenerator<{ documentId: string; chunks: ReadChunk[] }> {
    for (const documentId of await this.sourceIds(kbId)) {
      const source = await this.kbs.getSource(kbId, documentId);
      if (!source || source.status !== 'ready') continue;
      for (let offset = 0; ; offset += CHUNK_BATCH) {
        const chunks = await this.chunkSlice(kbId, documentId, offset);
        yield { documentId, chunks };
        if (chunks.length < CHUNK_BATCH) break;
      }
    }
  }

  /**
   * The knowledge base's source ids, read SOURCE_BATCH at a time. A source
   * deleted between two slices shifts the rest and could hide one from the
   * build (its chunks predate the feed position the build starts from), so the
   * list is read again while the knowledge base's revision moves under it.
   */
  private async sourceIds(kbId: string): Promise<string[]> {
    const list = this.keys.sourceIds(kbId);
    for (let tries = 0; ; tries++) {
      const rev = await this.redis.hget(this.keys.kb(kbId), KB_FIELDS.rev);
      const ids: string[] = [];
      for (let at = 0; ; at += SOURCE_BATCH) {
        const slice = await this.redis.lrange(list, at, at + SOURCE_BATCH - 1);
        ids.push(...slice);
        if (slice.length < SOURCE_BATCH) break;
      }
      if (ids.length <= SOURCE_BATCH || tries >= 4 || (await this.redis.hget(this.keys.kb(kbId), KB_FIELDS.rev)) === rev) return [...new Set(ids)];
    }
  }

  /**
   * CHUNK_BATCH of a source's chunks from `offset` with their texts: the
   * entries in one LRANGE, the texts in GETRANGEs of the Markdown each
   * spanning at most TEXT_SPAN bytes (consecutive chunks share one).
   */
  private async chunkSlice(kbId: string, documentId: string, offset: number): Promise<ReadChunk[]> {
    const rows = await this.redis.lrange(this.keys.chunks(kbId, documentId), offset, offset + CHUNK_BATCH - 1);
    const entries = rows.map((r) => JSON.parse(r) as StoredChunk);
    const spans: { start: number; end: number; from: number; to: number }[] = [];
    entries.forEach((e, i) => {
      const last = spans.at(-1);
      if (last && e.byteStart >= last.start && Math.max(last.end, e.byteEnd) - last.start <= TEXT_SPAN) {
        last.end = Math.max(last.end, e.byteEnd);
        last.to = i + 1;
      } else spans.push({ start: e.byteStart, end: e.byteEnd, from: i, to: i + 1 });
    });
    const pipe = this.redis.pipeline();
    const md = this.keys.markdown(kbId, documentId);
    // An empty span reads nothing (GETRANGE's end of -1 would mean the whole string).
    const at = spans.map((span) => (span.end > span.start ? pipe.getrangeBuffer(md, span.start, span.end - 1).length - 1 : -1));
    const texts = pipe.length > 0 ? ((await pipe.exec()) ?? []) : [];
    const out: ReadChunk[] = [];
    spans.forEach((span, j) => {
      const bytes = (at[j]! >= 0 ? (texts[at[j]!]?.[1] as Buffer | undefined) : undefined) ?? Buffer.alloc(0);
      for (let i = span.from; i < span.to; i++) {
        const { byteStart, byteEnd, ...c } = entries[i]!;
        out.push({ ...c, text: byteEnd > byteStart ? bytes.toString('utf8', byteStart - span.start, byteEnd - span.start) : '' });
      }
    });
    return out;
  }

  /** Applies the feed's events after the index's position; undefined when the feed no longer holds that position. */
  private async catchUp(workspaceId: string, kbId: string, idx: MemoryIndex): Promise<MemoryIndex | undefined> {
    if ((await this.feed.head(kbId)) === idx.position) return idx;
    const stem = await this.stem();
    for (;;) {
      let page;
      try {
        page = await this.feed.read(workspaceId, kbId, idx.position === FEED_START ? undefined : encodeCursor(idx.position), FEED_BATCH);
      } catch (err) {
        // Past retention, or a position the feed no longer knows (ahead of it, as after a Redis restart
        // that lost the stream): the index is built again from the chunks.
        if (err instanceof AppError && err.code === 'gone') return undefined;
        if (err instanceof ValidationError) return undefined;
        throw err;
      }
      if (idx.bytes > this.cacheBytes) throw new UnavailableError(TOO_LARGE, 3600);
      try {
        for (const event of page.data) {
          const type = event.type as string;
          if (event.type === 'chunk.upserted') idx.upsert(event.chunk, stem);
          else if (event.type === 'chunk.deleted') idx.remove(event.chunkId);
          // The knowledge base is gone: nothing of it is left to find.
          else if (type === 'knowledge_base.deleted') idx = new MemoryIndex(idx.position);
        }
      } catch {
        // An event the index cannot apply leaves it wrong: it is built again from the chunks rather than left failing.
        return undefined;
      }
      idx.position = decodeCursor(page.nextCursor);
      // A page that moved nothing ends the catch-up too: the feed has nothing more for now.
      if (!page.hasMore || page.data.length === 0) return idx;
    }
  }
}
