import { getBench } from './bench-ceilings.js';
import { formatPaired } from './bench-pairs.js';
import type { BenchService } from './bench-service.js';
import { fmt, type Row } from './bench-table.js';

/**
 * GET of a knowledge base with `sources` sources: throughput in pairs beside
 * the bare handler, latency (p95) with one client, and the response's size.
 */
export async function getSection(
  svc: BenchService,
  o: { runs: number; durationS: number; sources: number; say: (line: string) => void },
): Promise<{ rows: Row[]; result: Record<string, unknown> }> {
  const g = await getBench(svc, o);
  const t = g.throughput;
  const { api, bare } = g.latency;
  const kb = (bytes: number): string => `${fmt(bytes / 1024, 0)} kB`;
  const u = g.uncached;
  o.say(`get: paired ratio ${formatPaired(t)}; p95 ${fmt(api.p95Ms, 1)} ms, bare ${fmt(bare.p95Ms, 1)} ms; response ${kb(api.responseBytes)}`);
  o.say(`get, view cache off: paired ratio ${formatPaired(u.throughput)}; p95 ${fmt(u.latency.p95Ms, 1)} ms`);
  const rows: Row[] = [
    {
      measurement: `GET /v1/knowledge-bases/{kbId} (${g.sources} sources), ${g.connections} connections, ${o.durationS} s a run`,
      result: `${fmt(t.ours, 0)} req/s; load ${fmt(t.load.before, 1)} before, ${fmt(t.load.after, 1)} after`,
      reference: 'bare node:http + ioredis, same reads',
      referenceResult: `${fmt(t.reference, 0)} req/s`,
      ratio: formatPaired(t),
      target: '>= 0.9',
    },
    {
      measurement: `GET /v1/knowledge-bases/{kbId} (${g.sources} sources), one client, latency`,
      result: `p50 ${fmt(api.p50Ms, 1)} ms, p95 ${fmt(api.p95Ms, 1)} ms, p99 ${fmt(api.p99Ms, 1)} ms; response ${kb(api.responseBytes)}`,
      reference: 'bare node:http + ioredis, same reads',
      referenceResult: `p50 ${fmt(bare.p50Ms, 1)} ms, p95 ${fmt(bare.p95Ms, 1)} ms; response ${kb(bare.responseBytes)}`,
      ratio: bare.p95Ms / api.p95Ms,
      target: 'p95 < 50 ms',
    },
    {
      measurement: `GET /v1/knowledge-bases/{kbId} (${g.sources} sources), KB_VIEW_CACHE_MB=0 (every source read, as for an active knowledge base), ${g.connections} connections`,
      result: `${fmt(u.throughput.ours, 0)} req/s; one client p50 ${fmt(u.latency.p50Ms, 1)} ms, p95 ${fmt(u.latency.p95Ms, 1)} ms`,
      reference: 'bare node:http + ioredis, same reads',
      referenceResult: `${fmt(u.throughput.reference, 0)} req/s`,
      ratio: formatPaired(u.throughput),
      target: '',
    },
  ];
  return { rows, result: g };
}
