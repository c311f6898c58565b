/**
 * Search quality on the corpus's Markdown documents: every document is cut
 * into chunks as the service cuts it and finished as a ready source of one
 * knowledge base (a throwaway redis-server); each heading becomes a query
 * (its text without its numbering) whose relevant chunks are those under
 * that heading (the chunks whose heading path starts with its path). Prints
 * recall@10 and MRR of the service's search (BM25 with heading words
 * weighted, stop words left out of the query) beside the same search with
 * the stop words kept and plain BM25 over the text
 * alone (no heading weight), ranked in memory. Needs redis-server on PATH
 * and the corpus in ../shared/corpus (or CORPUS_DIR); a few seconds.
 *
 *   npm run bench:search-quality [-- --max-tokens 512]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { chunkView } from '../shared/chunking/chunk-view.js';
import type { Chunk } from '../shared/schemas/chunk.js';
import { rankChunks, type Postings } from '../shared/search/rank.js';
import { termCounts, words, type Stem } from '../shared/search/tokenize.js';
import { createStore } from '../shared/store/index.js';
import { sourceFingerprint, type NewSource } from '../shared/store/kb-records.js';
import { headingQueries, qualityScores } from './lib/search-quality-set.js';
import { corpusDir, corpusPresent } from '../test/corpus/corpus-files.js';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { cutChunks } from '../worker/chunking/cut-chunks.js';
import { extractMarkdown } from '../worker/extractors/markdown/extract-markdown.js';

const { values: opts } = parseArgs({ options: { 'max-tokens': { type: 'string', default: '512' } } });
const WS = 'ws_quality';
const KB = 'kb_quality';
/** Chunks ranked per query. */
const DEPTH = 100;

/** Plain BM25 over the chunks' text, in memory. */
function plainBm25(chunks: Chunk[], stem: Stem): (terms: string[]) => string[] {
  const rows = chunks.map((c) => ({ id: c.id, counts: termCounts(c.text, stem), headingLength: termCounts(c.headings.join('\n'), stem) }));
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  const lengths = new Map(rows.map((r) => [r.id, sum(r.counts)]));
  const totals = { n: rows.length, bodyLength: [...lengths.values()].reduce((a, b) => a + b, 0), headingLength: 0 };
  return (terms) => {
    const postings: Postings[] = terms.map((t) => {
      const p: Postings = {};
      for (const r of rows) if (r.counts.has(t)) p[r.id] = `${r.counts.get(t)},0,${lengths.get(r.id)},0`;
      return p;
    });
    return rankChunks(postings, totals, 0).map((r) => r.id);
  };
}

async function main(): Promise<void> {
  const root = corpusDir();
  if (!corpusPresent(root)) throw new Error(`No corpus at ${root}; set CORPUS_DIR.`);
  const settings = { maxTokens: Number(opts['max-tokens']), overlapTokens: 0 };
  const server = await startRedisServer();
  const redis = new Redis(server.url);
  try {
    const store = createStore(redis, { prefix: 'quality', blobTtlSeconds: 3600 });
    const files = readdirSync(join(root, 'md')).filter((f) => f.endsWith('.md')).sort();
    const sources: (NewSource & { file: string })[] = files.map((file, i) => {
      const content = `md/${file}`;
      return { file, documentId: `doc_q${i}`, type: 'text', content, fingerprint: sourceFingerprint({ type: 'text', content }) };
    });
    await store.kbs.create({ workspaceId: WS, kbId: KB, name: 'Search quality', sources: sources.map(({ file: _f, ...s }) => s), now: new Date().toISOString() });
    const chunks: Chunk[] = [];
    for (const s of sources) {
      const { markdown = '' } = await extractMarkdown(readFileSync(join(root, 'md', s.file)));
      const stored = cutChunks(markdown, settings);
      const ref = { kbId: KB, documentId: s.documentId, run: 1 };
      await store.kbs.startSourceReport(ref, { now: new Date().toISOString() });
      await store.kbs.finishSourceReport(ref, { status: 'ready', text: markdown, markdown, chunks: stored, truncated: false }, { now: new Date().toISOString() });
      const source = (await store.kbs.getSource(KB, s.documentId))!;
      for (const c of await store.kbs.chunkRange(KB, s.documentId, 0, stored.length)) chunks.push(chunkView(KB, source, c));
    }
    const stem = await store.search.stem();
    const queries = headingQueries(chunks);
    const termsOf = (text: string) => [...new Set(words(text).map((w) => stem(w.word)))].slice(0, 32);
    const service: string[][] = [];
    for (const q of queries) service.push((await store.search.rank(WS, KB, { terms: await store.search.queryTerms(q.text), k: DEPTH })).map((r) => r.id));
    const withStopWords: string[][] = [];
    for (const q of queries) withStopWords.push((await store.search.rank(WS, KB, { terms: termsOf(q.text), k: DEPTH })).map((r) => r.id));
    const plain = plainBm25(chunks, stem);
    const baseline = queries.map((q) => plain(termsOf(q.text)));
    const s = qualityScores(queries, service);
    const b = qualityScores(queries, baseline);
    const w = qualityScores(queries, withStopWords);
    console.log(`${files.length} Markdown documents of ${root}/md, ${chunks.length} chunks (chunk_max_tokens ${settings.maxTokens}), ${queries.length} heading queries`);
    console.log('| ranking | recall@10 | MRR |');
    console.log('|---|---|---|');
    console.log(`| search (BM25, heading words x2, stop words left out of the query) | ${s.recall.toFixed(3)} | ${s.mrr.toFixed(3)} |`);
    console.log(`| the same with the stop words kept in the query | ${w.recall.toFixed(3)} | ${w.mrr.toFixed(3)} |`);
    console.log(`| plain BM25 over the text (baseline) | ${b.recall.toFixed(3)} | ${b.mrr.toFixed(3)} |`);
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

await main();
