/**
 * Search under load, on a throwaway redis-server: `--chunks` chunks (20,000)
 * of the corpus's Markdown and plain text (made-up prose without the corpus),
 * searched by `--clients` (8) concurrent clients of one API process; prints
 * p50 and p95, queries per second, the first search's seconds (the index
 * built), the slowest Redis command or script each phase sent (SLOWLOG at
 * 0 µs) and the index's Redis memory against the chunks' text. `--big`
 * (100,000; 0 skips) runs the Redis-side figures again at that many chunks.
 * `--packed` also measures the read path of the candidate not taken (packed
 * postings per term in Redis, scored in the API process). `--old DIR` measures another checkout's search the same way (e.g. the
 * main branch's worktree) at `--chunks`.
 *
 *   npx tsx scripts/bench-search.ts [--chunks 20000] [--queries 400] [--clients 8] [--big 100000] [--old /work/main] [--packed] [--json]
 */
import { args, flag } from './lib/cli-args.js';
import { searchLoad, type SearchLoad, type SlowEntry } from './lib/search-load.js';

const chunks = Number(flag('chunks') ?? 20_000);
const queries = Number(flag('queries') ?? 400);
const clients = Number(flag('clients') ?? 8);
const big = Number(flag('big') ?? 100_000);
const old = flag('old');

const runs: [string, SearchLoad][] = [];
runs.push([`this tree, ${chunks} chunks`, await searchLoad({ chunks, queries, clients })]);
if (big > 0) runs.push([`this tree, ${big} chunks`, await searchLoad({ chunks: big, queries: Math.min(queries, 200), clients })]);
if (old) runs.push([`${old}, ${chunks} chunks`, await searchLoad({ chunks, queries: Math.min(queries, 200), clients, root: old })]);

if (args.includes('--json')) console.log(JSON.stringify(Object.fromEntries(runs), null, 2));
else {
  const ms = (micros: number) => `${(micros / 1000).toFixed(2)} ms`;
  const slow = (e: SlowEntry) => `${ms(e.micros)} (${e.command}; p99.9 ${ms(e.p999Micros)}, ${e.over5ms} of ${e.calls} over 5 ms)`;
  console.log('| run | p50 / p95 (ms) | queries/s | first search | slowest Redis call: first search / searches / catch-up | index in Redis / chunk text | index in the API process |');
  console.log('|---|---|---|---|---|---|---|');
  for (const [name, r] of runs) {
    const s = r.slowest;
    console.log(
      `| ${name}, ${r.clients} clients | ${r.p50Ms.toFixed(1)} / ${r.p95Ms.toFixed(1)} | ${r.queriesPerSecond.toFixed(0)} | ${r.firstSearchSeconds.toFixed(1)} s ` +
        `| ${slow(s.build)} / ${slow(s.searches)} / ${slow(s.catchUp)} ` +
        `| ${(r.indexBytes / 1e6).toFixed(1)} MB / ${(r.textBytes / 1e6).toFixed(1)} MB = ${r.indexOverText.toFixed(2)}x | ${(r.processIndexBytes / 1e6).toFixed(1)} MB |`,
    );
  }
}

if (args.includes('--packed')) {
  // The candidate not taken: packed postings per term in Redis, scored in the API process (read path only).
  const { packedLoad } = await import('./lib/search-packed.js');
  for (const n of [chunks, ...(big > 0 ? [big] : [])]) {
    const p = await packedLoad({ chunks: n, queries: Math.min(queries, 200), clients });
    console.log(
      `packed postings in Redis, ${p.chunks} chunks: p50 / p95 ${p.p50Ms.toFixed(1)} / ${p.p95Ms.toFixed(1)} ms, ${p.queriesPerSecond.toFixed(0)} queries/s, ` +
        `slowest GET ${(p.slowestGet.micros / 1000).toFixed(2)} ms, ${(p.bytesPerQuery / 1e3).toFixed(0)} KB read a search, Redis ${p.redisOverText.toFixed(2)}x the text (${p.postings} postings)`,
    );
  }
}
