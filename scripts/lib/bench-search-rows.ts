import { searchBench } from './bench-search.js';
import { searchLoad } from './search-load.js';

/** One row of the benchmark table, as scripts/bench.ts prints it. */
interface Row {
  measurement: string;
  result: string;
  reference: string;
  referenceResult: string;
  ratio: number | undefined;
  target: string;
}

/**
 * The search section of `npm run bench`: feed reads, the first search, search latency and
 * Redis bytes on 10,000 chunks, then eight clients on 20,000 chunks of the corpus's text
 * (scripts/bench-search.ts runs the same at 100,000 and against another checkout).
 */
export async function searchRows(results: Record<string, unknown>): Promise<Row[]> {
  const r = await searchBench();
  const load = await searchLoad({ chunks: 20_000, queries: 400, clients: 8 });
  results.search = { ...r, load };
  const slow = load.slowest;
  const worst = [slow.build, slow.searches, slow.catchUp].reduce((a, b) => (b.micros > a.micros ? b : a));
  const row = (measurement: string, result: string, target = ''): Row => ({ measurement, result, reference: '', referenceResult: '', ratio: undefined, target });
  return [
    row(`search p50 / p95, ${r.chunks} chunks`, `${r.searchP50Ms.toFixed(1)} / ${r.searchP95Ms.toFixed(1)} ms`, 'p95 < 50 ms'),
    row('change feed read', `${Math.round(r.feedEventsPerSecond)} events/s`),
    row('first search (builds the index from the chunks)', `${r.indexSeconds.toFixed(1)} s`),
    row('Redis bytes per chunk: feed / search index', `${Math.round(r.feedBytesPerChunk)} / ${Math.round(r.indexBytesPerChunk)}`),
    row('workspace usage over Redis bytes: feed', r.feedUsageRatio.toFixed(2)),
    row(`search p50 / p95, ${load.chunks} chunks of corpus text, ${load.clients} clients`, `${load.p50Ms.toFixed(1)} / ${load.p95Ms.toFixed(1)} ms, ${load.queriesPerSecond.toFixed(0)}/s`, 'p95 <= 50 ms'),
    row('slowest Redis call a search sent (SLOWLOG)', `${(worst.micros / 1000).toFixed(2)} ms (${worst.command})`, '<= 5 ms'),
    row('search index in Redis / chunk text', `${load.indexOverText.toFixed(2)}x`, '<= 3x'),
  ];
}
