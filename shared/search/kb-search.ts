import { chunkView } from '../chunking/chunk-view.js';
import type { SearchHit, SearchRequest } from '../schemas/search.js';
import type { StoredSource } from '../store/kb-records.js';
import type { StoreRedis } from '../store/commands.js';
import type { KbStore } from '../store/kb-store.js';
import type { KeySpace } from '../store/keys.js';
import { highlight, HEADING_WEIGHT, rankChunks, type IndexTotals, type Postings } from './rank.js';
import type { SearchIndex } from './search-index.js';
import { words } from './tokenize.js';

/** Query terms used at most: a pasted paragraph is still one bounded search. */
const MAX_QUERY_TERMS = 32;
/** Ranked chunks looked up per round while filling topK past the filter. */
const LOOKUP = 50;

export interface SearchDeps {
  redis: StoreRedis;
  keys: KeySpace;
  kbs: KbStore;
  index: SearchIndex;
}

/**
 * A search of one knowledge base (whose ownership the caller has checked):
 * the index caught up with the feed, the query's terms ranked by BM25 with
 * the heading path weighted, then the best chunks that pass the filter read
 * from the store as the API shows them, each with its highlight.
 */
export async function searchKb(deps: SearchDeps, workspaceId: string, kbId: string, req: SearchRequest, headingWeight = HEADING_WEIGHT): Promise<SearchHit[]> {
  await deps.index.catchUp(workspaceId, kbId);
  const stem = await deps.index.stem();
  const terms = [...new Set(words(req.query).map((w) => stem(w.word)))].slice(0, MAX_QUERY_TERMS);
  if (terms.length === 0) return [];
  const pipe = deps.redis.pipeline();
  pipe.hgetall(deps.keys.searchState(kbId));
  for (const t of terms) pipe.hgetall(deps.keys.searchPostingsPrefix(kbId) + t);
  const replies = ((await pipe.exec()) ?? []).map(([err, value]) => {
    if (err) throw err;
    return value as Record<string, string>;
  });
  const state = replies[0] ?? {};
  const totals: IndexTotals = { n: Number(state.n ?? 0), bodyLength: Number(state.bodyLength ?? 0), headingLength: Number(state.headingLength ?? 0) };
  const ranked = rankChunks(replies.slice(1) as Postings[], totals, headingWeight);
  const termSet = new Set(terms);
  const sources = new Map<string, StoredSource | null>();
  const hits: SearchHit[] = [];
  for (let at = 0; at < ranked.length && hits.length < req.topK; at += LOOKUP) {
    const batch = ranked.slice(at, at + LOOKUP);
    const docs = await deps.redis.hmget(deps.keys.searchDocs(kbId), ...batch.map((r) => r.id));
    for (const [i, raw] of docs.entries()) {
      if (!raw || hits.length >= req.topK) continue;
      const { d: documentId, i: index } = JSON.parse(raw) as { d: string; i: number };
      if (req.filter?.documentIds && !req.filter.documentIds.includes(documentId)) continue;
      if (!sources.has(documentId)) sources.set(documentId, await deps.kbs.getSource(kbId, documentId));
      const source = sources.get(documentId);
      if (!source || source.status !== 'ready' || !matchesMetadata(source, req.filter?.metadata)) continue;
      const [stored] = await deps.kbs.chunkRange(kbId, documentId, index, 1);
      if (!stored) continue;
      const chunk = chunkView(kbId, source, stored);
      // The index may trail the chunks by a write; a chunk that moved is left out rather than shown wrong.
      if (chunk.id !== batch[i]!.id) continue;
      hits.push({ score: Number(batch[i]!.score.toFixed(4)), chunk, ...highlight(chunk.text, termSet, stem) });
    }
  }
  return hits;
}

function matchesMetadata(source: StoredSource, wanted: Record<string, string | number | boolean> | undefined): boolean {
  if (!wanted) return true;
  return Object.entries(wanted).every(([k, v]) => source.metadata?.[k] === v);
}
