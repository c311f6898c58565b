import type { Chunk } from '../../shared/schemas/chunk.js';
import { words } from '../../shared/search/tokenize.js';

/** A heading's text without a leading number ("2.3", "4.", "IV.", "A)"; "Step 4:" and "A guide" stay). */
export const withoutNumbering = (heading: string) => heading.replace(/^\s*(?:\d+(?:\.\d+)*[.)]?|(?:[IVXLC]+|[A-Za-z])[.)])\s+(?=\S)/, '').trim();

export interface HeadingQuery {
  text: string;
  relevant: Set<string>;
}

/** One query per distinct heading path: its last heading, and the chunks under it. */
export function headingQueries(chunks: Chunk[]): HeadingQuery[] {
  const byPath = new Map<string, HeadingQuery>();
  for (const c of chunks) {
    for (let depth = 1; depth <= c.headings.length; depth++) {
      const path = `${c.documentId}\u0000${c.headings.slice(0, depth).join('\u0000')}`;
      let q = byPath.get(path);
      if (!q) byPath.set(path, (q = { text: withoutNumbering(c.headings[depth - 1]!), relevant: new Set() }));
      q.relevant.add(c.id);
    }
  }
  return [...byPath.values()].filter((q) => words(q.text).length > 0);
}

/** Mean recall@10 (relevant chunks in the first ten over all relevant ones) and MRR (1 / rank of the first relevant chunk, 0 when none is ranked) of one ranking per query. */
export function qualityScores(queries: HeadingQuery[], ranked: string[][]): { recall: number; mrr: number } {
  let recall = 0;
  let mrr = 0;
  queries.forEach((q, i) => {
    const ids = ranked[i]!;
    recall += ids.slice(0, 10).filter((id) => q.relevant.has(id)).length / q.relevant.size;
    const first = ids.findIndex((id) => q.relevant.has(id));
    mrr += first < 0 ? 0 : 1 / (first + 1);
  });
  return { recall: recall / queries.length, mrr: mrr / queries.length };
}

