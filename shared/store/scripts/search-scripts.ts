import { defineScript } from './script.js';

/** One change to the index: a chunk indexed anew (`doc`) or dropped (no `doc`). */
export interface SearchOp {
  id: string;
  doc?: string;
}

export interface ApplySearchInput {
  kbId: string;
  from: string;
  to: string;
  stemmer: string;
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
    args: { from: i.from, to: i.to, stemmer: i.stemmer, reset: i.reset, postings: k.searchPostingsPrefix(i.kbId), ops: i.ops },
  }),
  replies: { ok: {}, moved: { at: 'str' } },
});
