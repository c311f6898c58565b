/**
 * Asks a knowledge base a question and prints the best chunks: rank, score,
 * the source's title (with the PDF page), the heading path and the highlight.
 * Optional `key=value` arguments keep only chunks whose source's metadata has
 * those values (numbers and true/false are read as such).
 *
 *   API=http://localhost:3000 KEY=<api key> npx tsx examples/search.ts <kbId> "<question>" [key=value…]
 */
import { createKbClient, type Metadata } from '@kb-ingest/client';

const [kbId, query, ...filters] = process.argv.slice(2);
if (!kbId || !query) throw new Error('usage: search.ts <kbId> "<question>" [key=value…]');
const kb = createKbClient({ baseUrl: process.env.API ?? 'http://localhost:3000', apiKey: process.env.KEY ?? '' });

const metadata: Metadata = {};
for (const f of filters) {
  const [key = '', value = ''] = f.split(/=(.*)/s);
  metadata[key] = value === 'true' ? true : value === 'false' ? false : value !== '' && !Number.isNaN(Number(value)) ? Number(value) : value;
}

const result = await kb.search(kbId, { query, topK: 5, ...(filters.length ? { filter: { metadata } } : {}) });
if (result.data.length === 0) console.log('no chunk matches');
result.data.forEach(({ chunk, score, highlight }, i) => {
  const source = chunk.filename ?? chunk.url ?? chunk.title ?? chunk.documentId;
  const where = chunk.pageStart !== undefined ? `${source}, p. ${chunk.pageStart}` : source;
  console.log(`${i + 1}. ${score.toFixed(2)}  ${where}  ${chunk.headings.join(' > ')}`);
  // The highlight is HTML-escaped with <mark> around the matched words.
  console.log(`   ${highlight.replace(/<\/?mark>/g, '*').replace(/\s+/g, ' ')}`);
});
