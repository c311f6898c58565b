import type { SearchHit, SearchRequest } from '../schemas/search.js';
import type { StoreRedis } from '../store/commands.js';
import type { KbStore } from '../store/kb-store.js';
import type { KeySpace } from '../store/keys.js';
import { highlight } from './rank.js';
import type { SearchIndex } from './search-index.js';

export interface SearchDeps {
  redis: StoreRedis;
  keys: KeySpace;
  kbs: KbStore;
  index: SearchIndex;
}

/**
 * A search of one knowledge base (whose ownership the caller has checked):
 * the query's terms (stop words left out) ranked by BM25 with the heading
 * path weighted, in the index the API process keeps from the change feed,
 * the filter applied while ranking, and the best chunks as the API shows
 * them, each with its highlight.
 */
export async function searchKb(deps: SearchDeps, workspaceId: string, kbId: string, req: SearchRequest): Promise<SearchHit[]> {
  const stem = await deps.index.stem();
  const terms = await deps.index.queryTerms(req.query);
  if (terms.length === 0) return [];
  const ranked = await deps.index.rank(workspaceId, kbId, { terms, k: req.topK, documentIds: req.filter?.documentIds, metadata: req.filter?.metadata });
  const termSet = new Set(terms);
  const hits: SearchHit[] = [];
  // A chunk that moved since the index caught up is already left out (SearchIndex.rank).
  for (const { score, chunk } of ranked) hits.push({ score: Number(score.toFixed(4)), chunk, ...highlight(chunk.text, termSet, stem) });
  return hits;
}
