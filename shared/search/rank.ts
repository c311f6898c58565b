import { eachWord, type Stem, type WordSpan } from './tokenize.js';

/**
 * BM25's term-frequency saturation (the usual value) and length
 * normalisation, weaker than the usual 0.75: a chunk's length is capped by
 * the chunker, so a short chunk is mostly the end of a section rather than
 * a terse passage, and full normalisation lets such tails outrank the
 * passage that explains the matter (measured in docs/retrieval.md).
 */
export const K1 = 1.2;
export const B = 0.6;

/** How much a word of a chunk's heading path counts against one of its text (0: plain BM25). */
export const HEADING_WEIGHT = 2;

/** The scoring the search index is built with. */
export const SCORING = { k1: K1, b: B, weight: HEADING_WEIGHT } as const;

/** The index's totals, for idf and the average length. */
export interface IndexTotals {
  n: number;
  bodyLength: number;
  headingLength: number;
}

/** A term's postings as the index keeps them: chunk id to `body,heading,bodyLength,headingLength`. */
export type Postings = Record<string, string>;

/**
 * BM25 over each chunk's text and heading path as one field in which a
 * heading word counts `headingWeight` times (BM25F with two fields of one
 * length normalisation). Gives every chunk that holds a query term, best first.
 * The index each API process holds ranks the same way over typed arrays
 * (memory-index.ts); this form over postings strings is the reference its
 * tests and the quality evaluation compare with.
 */
export function rankChunks(postingsByTerm: Postings[], totals: IndexTotals, headingWeight = HEADING_WEIGHT): { id: string; score: number }[] {
  const n = Math.max(totals.n, 1);
  const avg = Math.max((totals.bodyLength + headingWeight * totals.headingLength) / n, 1);
  const scores = new Map<string, number>();
  for (const postings of postingsByTerm) {
    // Parsed once; with no heading weight a chunk whose heading alone holds the term does not count.
    const matches: [string, { tf: number; length: number }][] = [];
    for (const id in postings) {
      const w = weightedTf(postings[id]!, headingWeight);
      if (w.tf > 0) matches.push([id, w]);
    }
    const df = matches.length;
    if (df === 0) continue;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    for (const [id, { tf, length }] of matches) {
      const s = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / avg));
      scores.set(id, (scores.get(id) ?? 0) + s);
    }
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
}

function weightedTf(posting: string, w: number): { tf: number; length: number } {
  const [tb = 0, th = 0, b = 0, h = 0] = posting.split(',').map(Number);
  return { tf: tb + w * th, length: b + w * h };
}

const SNIPPET_CHARS = 240;
const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The part of `text` around its first matched word, HTML-escaped, with each
 * word whose term is in `terms` wrapped in `<mark>`; and the words that matched.
 * One pass over the words, keeping only the matched ones.
 */
export function highlight(text: string, terms: ReadonlySet<string>, stem: Stem): { highlight: string; matchedTerms: string[] } {
  const hits: WordSpan[] = [];
  eachWord(text, (word, start, end) => {
    if (terms.has(stem(word))) hits.push({ word, start, end });
  });
  const start = hits.length > 0 ? Math.max(0, hits[0]!.start - SNIPPET_CHARS / 4) : 0;
  const end = Math.min(text.length, start + SNIPPET_CHARS);
  let out = start > 0 ? '…' : '';
  let at = start;
  for (const hit of hits) {
    if (hit.start < at || hit.end > end) continue;
    out += `${escapeHtml(text.slice(at, hit.start))}<mark>${escapeHtml(text.slice(hit.start, hit.end))}</mark>`;
    at = hit.end;
  }
  out += escapeHtml(text.slice(at, end)) + (end < text.length ? '…' : '');
  return { highlight: out, matchedTerms: [...new Set(hits.map((h) => h.word))] };
}
