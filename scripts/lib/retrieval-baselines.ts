import pg from 'pg';
import bm25 from 'wink-bm25-text-search';
import nlp from 'wink-nlp-utils';

/** A chunk as the baselines index it: its id, text and heading path. */
export interface BaselineChunk {
  id: string;
  text: string;
  headings: string[];
}

/** Ranks chunk ids for a query, best first, at most `k`. */
export type Ranker = (query: string, k: number) => Promise<string[]>;

/** Where the PostgreSQL baseline connects: loopback, trust auth, as every machine here runs it. */
export const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

/**
 * PostgreSQL full-text search over the same chunks: a temporary table of id
 * and `to_tsvector('english', headings || text)` with a GIN index, ranked by
 * `ts_rank`. Two queries: `websearch_to_tsquery` (every term required, as a
 * search box does) and the same lexemes OR-ed (any term, so a question's
 * extra words do not empty the answer). The table goes with the session.
 */
export async function postgresRankers(chunks: BaselineChunk[], url = PG_URL): Promise<{ and: Ranker; or: Ranker; close(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect().catch((err: Error) => {
    throw new Error(`PostgreSQL is not reachable at ${url} (${err.message}); the baseline needs it running with trust auth`);
  });
  const table = `retrieval_chunks_${process.pid}`;
  try {
    await client.query(`CREATE TEMP TABLE ${table} (id text PRIMARY KEY, body text NOT NULL, tsv tsvector NOT NULL)`);
    for (let i = 0; i < chunks.length; i += 200) {
      const batch = chunks.slice(i, i + 200);
      await client.query(
        `INSERT INTO ${table} (id, body, tsv) SELECT id, body, to_tsvector('english', heads || E'\\n' || body) FROM unnest($1::text[], $2::text[], $3::text[]) AS u(id, body, heads)`,
        [batch.map((c) => c.id), batch.map((c) => c.text), batch.map((c) => c.headings.join('\n'))],
      );
    }
    await client.query(`CREATE INDEX ON ${table} USING gin (tsv)`);
    await client.query(`ANALYZE ${table}`);
  } catch (err) {
    await client.end();
    throw err;
  }
  const ranked = (tsquery: string): Ranker => async (query, k) => {
    const { rows } = await client.query<{ id: string }>(
      `WITH q AS (SELECT ${tsquery} AS q) SELECT id FROM ${table}, q WHERE q.q IS NOT NULL AND tsv @@ q.q ORDER BY ts_rank(tsv, q.q) DESC, id LIMIT $2`,
      [query, k],
    );
    return rows.map((r) => r.id);
  };
  return {
    and: ranked(`websearch_to_tsquery('english', $1)`),
    // The query's own lexemes (stemmed, stop words out), quoted, joined by |.
    or: ranked(`(SELECT string_agg(quote_literal(lexeme), ' | ')::tsquery FROM unnest(to_tsvector('english', $1)))`),
    async close() {
      await client.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
      await client.end();
    },
  };
}

/**
 * BM25 from an npm library (wink-bm25-text-search, k1 1.2, b 0.75) over the
 * same chunks, with the library's documented preparation: lower case, its
 * tokenizer, its English stop words removed, Porter stems. Heading words
 * weigh twice the text's (BM25F), as the service's do.
 */
export function bm25LibraryRanker(chunks: BaselineChunk[]): Ranker {
  const engine = bm25();
  engine.defineConfig({ fldWeights: { body: 1, headings: 2 }, bm25Params: { k1: 1.2, b: 0.75 } });
  engine.definePrepTasks([nlp.string.lowerCase, nlp.string.tokenize0, nlp.tokens.removeWords, nlp.tokens.stem] as never[]);
  for (const c of chunks) engine.addDoc({ body: c.text, headings: c.headings.join('\n') }, c.id);
  engine.consolidate();
  return async (query, k) => engine.search(query, k).map(([id]) => id);
}
