import { chunkView } from '../chunking/chunk-view.js';
import type { StoredChunk } from '../schemas/chunk.js';
import type { SearchHit, SearchRequest } from '../schemas/search.js';
import { parseSource } from '../store/kb-records.js';
import type { StoreRedis } from '../store/commands.js';
import type { KbStore } from '../store/kb-store.js';
import type { KeySpace } from '../store/keys.js';
import { highlight } from './rank.js';
import type { SearchIndex } from './search-index.js';
import { words } from './tokenize.js';

/** Query terms used at most: a pasted paragraph is still one bounded search. */
const MAX_QUERY_TERMS = 32;

export interface SearchDeps {
  redis: StoreRedis;
  keys: KeySpace;
  kbs: KbStore;
  index: SearchIndex;
}

/**
 * A search of one knowledge base (whose ownership the caller has checked):
 * the query's terms ranked by BM25 with the heading path weighted, in the
 * index kept from the change feed, the filter applied while ranking, and
 * the best chunks as the API shows them, each with its highlight.
 */
export async function searchKb(deps: SearchDeps, workspaceId: string, kbId: string, req: SearchRequest): Promise<SearchHit[]> {
  const stem = await deps.index.stem();
  const terms = [...new Set(words(req.query).map((w) => stem(w.word)))].slice(0, MAX_QUERY_TERMS);
  if (terms.length === 0) return [];
  const ranked = await deps.index.rank(workspaceId, kbId, { terms, k: req.topK, documentIds: req.filter?.documentIds, metadata: req.filter?.metadata });
  const termSet = new Set(terms);
  const hits: SearchHit[] = [];
  for (const r of ranked) {
    const source = parseSource(r.record);
    if (!source) continue;
    const { byteStart: _s, byteEnd: _e, ...stored } = JSON.parse(r.entry) as StoredChunk;
    const chunk = chunkView(kbId, source, { ...stored, text: r.text });
    // An index that trailed the chunks (writes racing the catch-up) may name a chunk that moved: it is left out rather than shown wrong.
    if (chunk.id !== r.id) continue;
    hits.push({ score: Number(r.score.toFixed(4)), chunk, ...highlight(chunk.text, termSet, stem) });
  }
  return hits;
}
