import { searchBench } from './bench-search.js';

/** One row of the benchmark table, as scripts/bench.ts prints it. */
interface Row {
  measurement: string;
  result: string;
  reference: string;
  referenceResult: string;
  ratio: number | undefined;
  target: string;
}

/** The search section of `npm run bench`: feed reads, indexing, search latency and Redis bytes on 10,000 chunks. */
export async function searchRows(results: Record<string, unknown>): Promise<Row[]> {
  const r = await searchBench();
  results.search = r;
  const row = (measurement: string, result: string, target = ''): Row => ({ measurement, result, reference: '', referenceResult: '', ratio: undefined, target });
  return [
    row(`search p50 / p95, ${r.chunks} chunks`, `${r.searchP50Ms.toFixed(1)} / ${r.searchP95Ms.toFixed(1)} ms`, 'p95 < 50 ms'),
    row('change feed read', `${Math.round(r.feedEventsPerSecond)} events/s`),
    row('first search (indexes every chunk from the feed)', `${r.indexSeconds.toFixed(1)} s`),
    row('Redis bytes per chunk: feed / search index', `${Math.round(r.feedBytesPerChunk)} / ${Math.round(r.indexBytesPerChunk)}`),
    row('workspace usage over Redis bytes: feed / search index', `${r.feedUsageRatio.toFixed(2)} / ${r.indexUsageRatio.toFixed(2)}`),
  ];
}
