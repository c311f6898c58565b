import { chunkView, type ReadChunk } from '../chunking/chunk-view.js';
import type { ChangeFeed } from '../feed/change-feed.js';
import { decodeCursor, encodeCursor, FEED_START } from '../feed/cursor.js';
import { AppError, UnavailableError } from '../errors.js';
import type { Metadata } from '../schemas/metadata.js';
import type { StoredChunk } from '../schemas/chunk.js';
import { parseSource } from '../store/kb-records.js';
import type { StoreRedis } from '../store/commands.js';
import type { KbStore } from '../store/kb-store.js';
import type { KeySpace } from '../store/keys.js';
import { indexedChunk, MemoryIndex, type IndexHit } from './memory-index.js';
import { loadStopWords } from './stopwords.js';
import { loadStemmer, words, type Stem, type StemmerName } from './tokenize.js';

/** Chunks read per command while an index is built (a slice of a source's chunk list, then their texts). */
export const CHUNK_BATCH = 500;
/** Bytes of a source's Markdown read per command while an index is built (a slice's texts, one range). */
export const TEXT_SPAN = 1024 * 1024;
/** Source ids read per command while an index is built. */
export const SOURCE_BATCH = 1000;
/** Feed events read per call while an index catches up. */
export const FEED_BATCH = 200;
/** Source records read per pipeline while a search checks its candidates' sources. */
const RECORD_BATCH = 500;
/** Query terms used at most: a pasted paragraph is still one bounded search. */
export const MAX_QUERY_TERMS = 32;
/** Default of SEARCH_INDEX_CACHE_MB. */
export const DEFAULT_INDEX_CACHE_BYTES = 256 * 1024 * 1024;
/** Why a knowledge base cannot be searched: its index alone would pass the process's budget. */
const TOO_LARGE = "This knowledge base's search index would take more memory than the API may give search indexes (SEARCH_INDEX_CACHE_MB).";
/** Postings of an index built before this one (in Redis) removed per command. */
const LEGACY_BATCH = 200;

/** A chunk as a search reads it: its score, source record, stored entry and text. */
export interface RankedChunk {
  id: string;
  score: number;
  documentId: string;
  record: Record<string, string>;
  entry: string;
  text: string;
}

/** What a search asks the index for: stemmed terms, how many chunks, and the filter. */
export interface RankRequest {
  terms: string[];
  k: number;
  documentIds?: string[] | undefined;
  metadata?: Metadata | undefined;
}

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
      const { hits, moved } = await this.resolve(kbId, idx, req);
      if (!moved || attempt > 0) return hits;
      if ((await this.head(kbId)) === idx.position && this.indexes.get(kbId) === idx) this.forget(kbId);
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
      await this.dropLegacy(kbId);
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

  /** The feed position after its newest event (the stream keeps it when trimming has emptied it), in one command. */
  private async head(kbId: string): Promise<string> {
    let info: unknown[];
    try {
      info = (await this.redis.xinfo('STREAM', this.keys.changes(kbId))) as unknown[];
    } catch (err) {
      if (err instanceof Error && /no such key/i.test(err.message)) return FEED_START;
      throw err;
    }
    const at = info.indexOf('last-generated-id');
    return at >= 0 ? String(info[at + 1]) : FEED_START;
  }

  /** An index of every chunk of the knowledge base's ready sources, at the feed position taken first. */
  private async build(kbId: string): Promise<MemoryIndex> {
    const stem = await this.stem();
    const idx = new MemoryIndex(await this.head(kbId));
    for (let at = 0; ; at += SOURCE_BATCH) {
      const ids = await this.redis.lrange(this.keys.sourceIds(kbId), at, at + SOURCE_BATCH - 1);
      for (const documentId of ids) {
        const source = await this.kbs.getSource(kbId, documentId);
        if (!source || source.status !== 'ready') continue;
        for (let offset = 0; ; offset += CHUNK_BATCH) {
          const chunks = await this.chunkSlice(kbId, documentId, offset);
          for (const c of chunks) idx.upsert(indexedChunk(chunkView(kbId, source, c), stem));
          if (idx.bytes > this.cacheBytes) throw new UnavailableError(TOO_LARGE, 3600);
          if (chunks.length < CHUNK_BATCH) break;
        }
      }
      if (ids.length < SOURCE_BATCH) break;
    }
    return idx;
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
    if ((await this.head(kbId)) === idx.position) return idx;
    const stem = await this.stem();
    for (;;) {
      let page;
      try {
        page = await this.feed.read(workspaceId, kbId, idx.position === FEED_START ? undefined : encodeCursor(idx.position), FEED_BATCH);
      } catch (err) {
        if (err instanceof AppError && err.code === 'gone') return undefined;
        throw err;
      }
      if (idx.bytes > this.cacheBytes) throw new UnavailableError(TOO_LARGE, 3600);
      for (const event of page.data) {
        const type = event.type as string;
        if (event.type === 'chunk.upserted') idx.upsert(indexedChunk(event.chunk, stem));
        else if (event.type === 'chunk.deleted') idx.remove(event.chunkId);
        // The knowledge base is gone: nothing of it is left to find.
        else if (type === 'knowledge_base.deleted') idx = new MemoryIndex(idx.position);
      }
      idx.position = decodeCursor(page.nextCursor);
      if (!page.hasMore) return idx;
    }
  }

  /**
   * The index's best chunks whose sources the search admits, read back with
   * their records, entries and texts. The records of the candidates' sources
   * are read with the entries of the best k in one round trip; when a source
   * is refused, the candidates are ranked again without it (and more of them
   * read at once).
   */
  private async resolve(kbId: string, idx: MemoryIndex, req: RankRequest): Promise<{ hits: RankedChunk[]; moved: boolean }> {
    const only = req.documentIds ? new Set(req.documentIds) : undefined;
    // A source's record when a search may show its chunks, null when not; unknown sources are let through until read.
    const records = new Map<string, Record<string, string> | null>();
    const admit = (d: string) => (!only || only.has(d)) && records.get(d) !== null;
    let hits: IndexHit[] = [];
    let entries: (string | null)[] = [];
    for (let want = req.k; ; ) {
      const top = idx.top(req.terms, want, admit);
      hits = top.slice(0, req.k);
      const unknown = [...new Set(top.map((h) => h.documentId))].filter((d) => !records.has(d)).slice(0, RECORD_BATCH);
      if (unknown.length === 0) break;
      const pipe = this.redis.pipeline();
      for (const d of unknown) pipe.hgetall(this.keys.source(kbId, d));
      for (const h of hits) pipe.lindex(this.keys.chunks(kbId, h.documentId), h.index);
      const rows = (await pipe.exec()) ?? [];
      let refused = false;
      unknown.forEach((d, j) => {
        const record = (rows[j]?.[1] ?? {}) as Record<string, string>;
        const ok = admits(record, req.metadata);
        records.set(d, ok ? record : null);
        refused ||= !ok;
      });
      entries = rows.slice(unknown.length).map((r) => (typeof r[1] === 'string' ? r[1] : null));
      if (!refused) break;
      want = Math.min(want * 2, req.k + RECORD_BATCH);
    }
    if (hits.length === 0) return { hits: [], moved: false };
    if (entries.length !== hits.length) {
      // The last round read no record (every candidate's source known): the entries of the hits it ranked.
      const pipe = this.redis.pipeline();
      for (const h of hits) pipe.lindex(this.keys.chunks(kbId, h.documentId), h.index);
      entries = ((await pipe.exec()) ?? []).map((r) => (typeof r[1] === 'string' ? r[1] : null));
    }
    const textsPipe = this.redis.pipeline();
    const parsed = entries.map((e) => (e ? (JSON.parse(e) as StoredChunk) : null));
    const textAt = hits.map((h, i) => {
      const c = parsed[i];
      if (!c || c.byteEnd <= c.byteStart) return -1;
      textsPipe.getrangeBuffer(this.keys.markdown(kbId, h.documentId), c.byteStart, c.byteEnd - 1);
      return textsPipe.length - 1;
    });
    const texts = textsPipe.length > 0 ? ((await textsPipe.exec()) ?? []) : [];
    let moved = false;
    const out: RankedChunk[] = [];
    hits.forEach((h, i) => {
      const c = parsed[i];
      const record = records.get(h.documentId)!;
      const source = parseSource(record);
      if (!c || !source) return void (moved = true);
      const text = textAt[i]! < 0 ? '' : ((texts[textAt[i]!]?.[1] as Buffer | undefined)?.toString('utf8') ?? '');
      const { byteStart: _s, byteEnd: _e, ...stored } = c;
      if (chunkView(kbId, source, { ...stored, text }).id !== h.id) return void (moved = true);
      out.push({ id: h.id, score: h.score, documentId: h.documentId, record, entry: entries[i]!, text });
    });
    return { hits: out, moved };
  }

  /**
   * Removes the index an earlier version kept in Redis (per-term sorted sets
   * beside the chunks), a slice of terms per command, each set unlinked (freed
   * off Redis's main thread).
   */
  private async dropLegacy(kbId: string): Promise<void> {
    const state = this.keys.searchState(kbId);
    const docs = this.keys.searchDocs(kbId);
    const terms = this.keys.searchTerms(kbId);
    if ((await this.redis.exists(state, docs, terms)) === 0) return;
    const prefix = this.keys.searchPostingsPrefix(kbId);
    for (;;) {
      const batch = await this.redis.srandmember(terms, LEGACY_BATCH);
      if (batch.length === 0) break;
      await this.redis.pipeline().unlink(...batch.map((term) => prefix + term)).srem(terms, ...batch).exec();
    }
    await this.redis.unlink(state, docs, terms);
  }
}

/** Whether a search may show chunks of the source this record holds: a ready source with the filter's metadata. */
function admits(record: Record<string, string>, metadata: Metadata | undefined): boolean {
  if (record.status !== 'ready') return false;
  if (!metadata) return true;
  const m = record.metadata ? (JSON.parse(record.metadata) as Metadata) : {};
  return Object.entries(metadata).every(([key, want]) => m[key] === want);
}
