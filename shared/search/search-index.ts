import { chunkView } from '../chunking/chunk-view.js';
import type { ChangeFeed } from '../feed/change-feed.js';
import { decodeCursor, encodeCursor, FEED_START } from '../feed/cursor.js';
import { AppError } from '../errors.js';
import type { Chunk } from '../schemas/chunk.js';
import { runScript, type StoreRedis } from '../store/commands.js';
import type { KbStore } from '../store/kb-store.js';
import type { KeySpace } from '../store/keys.js';
import { applySearchScript, searchKbScript, searchLayout, SEARCH_HIT_WIDTH, type SearchKbInput, type SearchOp } from '../store/scripts/search-scripts.js';
import { SCORING } from './rank.js';
import { loadStemmer, termCounts, type Stem, type StemmerName } from './tokenize.js';

/** Events applied per script call: small enough that Redis is never held for long. */
const BATCH = 500;
/** Catch-up rounds before a search goes ahead with the index as it is (replicas racing each other). */
const MAX_ROUNDS = 1000;

/** What the index keeps of one chunk: source, position, body and heading lengths, and term counts. */
export function indexedDoc(chunk: Chunk, stem: Stem): string {
  const body = termCounts(chunk.text, stem);
  const heading = termCounts(chunk.headings.join('\n'), stem);
  const t: Record<string, string> = {};
  for (const term of new Set([...body.keys(), ...heading.keys()])) t[term] = `${body.get(term) ?? 0},${heading.get(term) ?? 0}`;
  const length = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  return JSON.stringify({ d: chunk.documentId, i: chunk.index, b: length(body), h: length(heading), t });
}

/** A chunk as a search reads it from the index: its score, source record, stored entry and text. */
export interface RankedChunk {
  id: string;
  score: number;
  documentId: string;
  record: Record<string, string>;
  entry: string;
  text: string;
}

/** What a search asks the index for (see searchKb.lua). */
export type RankRequest = Pick<SearchKbInput, 'terms' | 'k' | 'documentIds' | 'metadata'>;

/**
 * A knowledge base's search index in Redis beside its chunks (per-term
 * postings sorted by weight, on its slot), kept up to date from its change
 * feed: a search ranks in one script call that first checks the index has
 * applied the whole feed; when it has not, the events it has not seen are
 * applied in batches fenced by the feed position, so any API replica can do
 * it and none repeats another's work. When the feed no longer holds the
 * index's position (past retention), or the index was built with another
 * stemmer or scoring, it is built again from the chunks.
 */
export class SearchIndex {
  constructor(
    readonly redis: StoreRedis,
    private readonly keys: KeySpace,
    private readonly feed: ChangeFeed,
    private readonly kbs: KbStore,
    readonly stemmer: StemmerName,
  ) {}

  private stemFn: Stem | undefined;

  /** The stemmer's function, loaded on first use. */
  async stem(): Promise<Stem> {
    this.stemFn ??= await loadStemmer(this.stemmer);
    return this.stemFn;
  }

  /** Applies every feed event the index has not seen yet. */
  async catchUp(workspaceId: string, kbId: string): Promise<void> {
    const stem = await this.stem();
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const [at, stemmer, layout] = await this.redis.hmget(this.keys.searchState(kbId), 'cursor', 'stemmer', 'layout');
      if (at != null && (stemmer !== this.stemmer || layout !== searchLayout(SCORING))) return this.rebuild(kbId, at);
      const from = at ?? FEED_START;
      let page;
      try {
        page = await this.feed.read(workspaceId, kbId, from === FEED_START ? undefined : encodeCursor(from), BATCH);
      } catch (err) {
        if (err instanceof AppError && err.code === 'gone') return this.rebuild(kbId, from);
        throw err;
      }
      if (page.data.length === 0) return;
      const ops: SearchOp[] = page.data.flatMap((e) => (e.type === 'chunk.upserted' ? [{ id: e.chunk.id, doc: indexedDoc(e.chunk, stem) }] : e.type === 'chunk.deleted' ? [{ id: e.chunkId }] : []));
      await this.apply(kbId, from, decodeCursor(page.nextCursor), false, ops);
      if (!page.hasMore) return;
    }
  }

  /** Drops the index and indexes every chunk again, then goes on from the feed position taken first. */
  private async rebuild(kbId: string, from: string): Promise<void> {
    const stem = await this.stem();
    const to = decodeCursor(await this.feed.headCursor(kbId));
    let reset = true;
    let prev = from;
    for (const documentId of await this.kbs.sourceIds(kbId)) {
      const source = await this.kbs.getSource(kbId, documentId);
      if (!source || source.status !== 'ready') continue;
      for (let offset = 0; ; offset += BATCH) {
        const chunks = await this.kbs.chunkRange(kbId, documentId, offset, BATCH);
        if (chunks.length === 0) break;
        const ops = chunks.map((c) => {
          const chunk = chunkView(kbId, source, c);
          return { id: chunk.id, doc: indexedDoc(chunk, stem) };
        });
        if (!(await this.apply(kbId, prev, to, reset, ops))) return;
        [reset, prev] = [false, to];
      }
    }
    if (reset) await this.apply(kbId, prev, to, true, []);
  }

  /** One fenced batch; false when another replica moved the index meanwhile (it carries on instead). */
  private async apply(kbId: string, from: string, to: string, reset: boolean, ops: SearchOp[]): Promise<boolean> {
    const reply = await runScript(this.redis, this.keys, applySearchScript, { kbId, from, to, stemmer: this.stemmer, scoring: SCORING, reset, ops });
    return reply.kind === 'ok';
  }

  /**
   * The best chunks for a query's terms: one script call while the index is
   * caught up (an idle knowledge base costs that one round trip); else the
   * index catches up first and ranks as it then is.
   */
  async rank(workspaceId: string, kbId: string, req: RankRequest): Promise<RankedChunk[]> {
    const input: SearchKbInput = { kbId, stemmer: this.stemmer, scoring: SCORING, stale: false, ...req };
    let reply = await runScript(this.redis, this.keys, searchKbScript, input);
    if (reply.kind === 'behind') {
      await this.catchUp(workspaceId, kbId);
      // Writes that land meanwhile are seen by the next search; a chunk they moved is left out by the caller.
      reply = await runScript(this.redis, this.keys, searchKbScript, { ...input, stale: true });
    }
    const hits = reply.kind === 'ok' ? reply.hits : [];
    const out: RankedChunk[] = [];
    for (let i = 0; i + SEARCH_HIT_WIDTH <= hits.length; i += SEARCH_HIT_WIDTH) {
      const [id, score, documentId, record, entry, text] = hits.slice(i, i + SEARCH_HIT_WIDTH) as [string, string, string, string, string, string];
      out.push({ id, score: Number(score), documentId, record: JSON.parse(record) as Record<string, string>, entry, text });
    }
    return out;
  }
}
