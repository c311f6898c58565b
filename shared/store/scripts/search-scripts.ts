import type { Metadata } from '../../schemas/metadata.js';
import { defineScript } from './script.js';

/** One change to the index: a chunk indexed anew (`doc`) or dropped (no `doc`). */
export interface SearchOp {
  id: string;
  doc?: string;
}

/** How the index scores: BM25's k1 and b and the weight of a heading word; a change makes the index be built again. */
export interface SearchScoring {
  k1: number;
  b: number;
  weight: number;
}

/** The tag an index keeps of how it was built (scoring and postings layout): an index with another tag is built again. */
export const searchLayout = (s: SearchScoring) => `impact-2:${s.k1}:${s.b}:${s.weight}`;

export interface ApplySearchInput {
  kbId: string;
  from: string;
  to: string;
  stemmer: string;
  scoring: SearchScoring;
  reset: boolean;
  ops: SearchOp[];
}

/** Applies a batch of feed events to a knowledge base's search index, fenced by the position it is at. */
export const applySearchScript = defineScript({
  name: 'kbApplySearch',
  file: 'applySearch',
  keys: ['state', 'docs', 'terms'],
  build: (i: ApplySearchInput, k) => ({
    keys: { state: k.searchState(i.kbId), docs: k.searchDocs(i.kbId), terms: k.searchTerms(i.kbId) },
    args: {
      from: i.from,
      to: i.to,
      stemmer: i.stemmer,
      layout: searchLayout(i.scoring),
      ...i.scoring,
      reset: i.reset,
      postings: k.searchPostingsPrefix(i.kbId),
      ops: i.ops,
    },
  }),
  replies: { ok: {}, moved: { at: 'str' } },
});

export interface SearchKbInput {
  kbId: string;
  stemmer: string;
  scoring: SearchScoring;
  /** Rank with the index as it is even when it trails the feed. */
  stale: boolean;
  terms: string[];
  /** How many chunks to give at most. */
  k: number;
  documentIds?: string[];
  metadata?: Metadata;
}

/** Values per hit in a searchKb reply. */
export const SEARCH_HIT_WIDTH = 6;

/** The best `k` chunks for a query's terms, with their sources and texts, in one call. */
export const searchKbScript = defineScript({
  name: 'kbSearch',
  file: 'searchKb',
  keys: ['state', 'docs', 'stream'],
  build: (i: SearchKbInput, k) => {
    const prefixes = k.sourceKeyPrefixes(i.kbId);
    return {
      keys: { state: k.searchState(i.kbId), docs: k.searchDocs(i.kbId), stream: k.changes(i.kbId) },
      args: {
        stemmer: i.stemmer,
        layout: searchLayout(i.scoring),
        ...i.scoring,
        stale: i.stale,
        terms: i.terms,
        k: i.k,
        postings: k.searchPostingsPrefix(i.kbId),
        sources: prefixes.record,
        chunks: prefixes.chunks,
        markdown: prefixes.markdown,
        documentIds: i.documentIds,
        metadata: i.metadata,
      },
    };
  },
  replies: { ok: { hits: 'rest' }, behind: {} },
});
