import { bareBullmq } from './bench-ceilings.js';
import { chunkCost } from './bench-chunk-cost.js';
import { formatPaired, pairedRuns } from './bench-pairs.js';
import { formatTopCommands, type RedisCost } from './bench-redis-cost.js';
import { benchTexts, textsEndToEnd, textsPolledEndToEnd, type BenchService, type PolledTextOptions, type PolledTextRun, type TextRun } from './bench-service.js';
import { fmt, type Row } from './bench-table.js';
import { median } from './bench-util.js';

export interface TextSectionOptions {
  runs: number;
  count: number;
  concurrency: number;
  distDir: string;
  say: (line: string) => void;
  /** The second shape: paragraphs PATCHed in small requests while the client polls GET through the API. */
  polled: PolledTextOptions;
}

const medianCost = (xs: RedisCost[]): RedisCost => {
  const m = median(xs.map((c) => c.commandsPerJob));
  return xs.reduce((a, b) => (Math.abs(b.commandsPerJob - m) < Math.abs(a.commandsPerJob - m) ? b : a));
};

const costText = (c: RedisCost): string =>
  `${fmt(c.commandsPerJob, 1)} commands, ${fmt(c.roundTripsPerJob, 1)} round trips, ${fmt(c.redisCpuMsPerJob, 3)} ms Redis CPU per job (${formatTopCommands(c)})`;

/**
 * `count` text sources end to end beside bare BullMQ no-op jobs on the same
 * Redis, run in pairs, with what each job costs Redis and what the worker's
 * tokenizer and chunker cost per text.
 */
export async function textSection(svc: BenchService, o: TextSectionOptions): Promise<{ rows: Row[]; result: Record<string, unknown> }> {
  const paired = await pairedRuns(
    async () => {
      const run = await textsEndToEnd(svc, o.count, o.concurrency);
      return { value: run.seconds, detail: run };
    },
    async () => {
      const bare = await bareBullmq(svc.redisUrl, o.count, o.concurrency);
      return { value: bare.seconds, detail: bare };
    },
    o.runs,
    { onRun: (r) => o.say(`text ${r.side}: ${fmt(r.value)} s (load ${fmt(r.loadBefore, 1)})`) },
  );
  const ours = paired.runs.filter((r) => r.side === 'ours').map((r) => r.detail as TextRun);
  const bareRuns = paired.runs.filter((r) => r.side === 'reference').map((r) => r.detail as { redis: RedisCost; cpuMsPerJob: number });
  const bare = bareRuns.map((r) => r.redis);
  const workerCpu = median(ours.map((r) => r.workerCpuMsPerJob));
  const bareCpu = median(bareRuns.map((r) => r.cpuMsPerJob));
  const ourCost = medianCost(ours.map((r) => r.redis));
  const bareCost = medianCost(bare);
  const chunks = await chunkCost(o.distDir, benchTexts(0, Math.min(o.count, 2000)));
  const failed = Math.max(...ours.map((r) => r.failed));
  o.say(`text: paired ratio ${formatPaired(paired)}; ${fmt(ourCost.commandsPerJob, 1)} Redis commands per text, bare ${fmt(bareCost.commandsPerJob, 1)}`);
  const load = `load ${fmt(paired.load.before, 1)} before, ${fmt(paired.load.after, 1)} after`;
  const rows: Row[] = [
    {
      measurement: `${o.count} text sources end to end, 1 worker process (WORKER_CONCURRENCY=${o.concurrency}), fresh workspace each run`,
      result: `${fmt(o.count / paired.ours, 0)} sources/s (${fmt(paired.ours)} s), ${failed} failed; ${load}`,
      reference: 'bare BullMQ no-op jobs, same Redis',
      referenceResult: `${fmt(o.count / paired.reference, 0)} jobs/s (${fmt(paired.reference)} s)`,
      ratio: formatPaired(paired),
      target: '>= 0.5',
    },
    {
      measurement: 'Redis cost per text source, PATCH to ready (INFO deltas, every process)',
      result: costText(ourCost),
      reference: 'bare BullMQ no-op job',
      referenceResult: costText(bareCost),
      ratio: ourCost.commandsPerJob / bareCost.commandsPerJob,
      target: '',
    },
    {
      measurement: 'worker CPU per text source (user and system, median of the runs)',
      result: `${fmt(workerCpu, 3)} ms (the worker process, from /proc)`,
      reference: 'bare BullMQ no-op job',
      referenceResult: `${fmt(bareCpu, 3)} ms (the bench process: queue add and worker together)`,
      ratio: workerCpu / bareCpu,
      target: '',
    },
    {
      measurement: `tokenizer and chunker per text (compiled, ${chunks.texts} bench texts, median of 5 passes)`,
      result: `normalize ${fmt(chunks.normalizeUs, 1)} µs, countTokens ${fmt(chunks.countTokensUs, 1)} µs, cutChunks ${fmt(chunks.cutChunksUs, 1)} µs`,
      reference: '',
      referenceResult: '',
      ratio: undefined,
      target: '',
    },
  ];
  const polled = await polledSection(svc, o);
  rows.push(...polled.rows);
  return {
    rows,
    result: { count: o.count, paired, redisCost: { ours: ourCost, bare: bareCost }, cpuMsPerJob: { worker: workerCpu, bare: bareCpu }, chunkCost: chunks, polled: polled.result },
  };
}

/**
 * The shape users make: `count` paragraphs of `polled.chars` characters,
 * `polled.perPatch` to a request, while the client polls the knowledge base
 * through the API every `polled.pollMs` (each GET then lists up to `count`
 * sources), beside bare BullMQ no-op jobs, in pairs.
 */
async function polledSection(svc: BenchService, o: TextSectionOptions): Promise<{ rows: Row[]; result: Record<string, unknown> }> {
  const p = o.polled;
  const paired = await pairedRuns(
    async () => {
      const run = await textsPolledEndToEnd(svc, o.count, o.concurrency, p);
      return { value: run.seconds, detail: run };
    },
    async () => {
      const bare = await bareBullmq(svc.redisUrl, o.count, o.concurrency);
      return { value: bare.seconds, detail: bare };
    },
    o.runs,
    { onRun: (r) => o.say(`polled text ${r.side}: ${fmt(r.value)} s (load ${fmt(r.loadBefore, 1)})`) },
  );
  const ours = paired.runs.filter((r) => r.side === 'ours').map((r) => r.detail as PolledTextRun);
  const mid = (f: (r: PolledTextRun) => number): number => median(ours.map(f));
  const cost = medianCost(ours.map((r) => r.redis));
  const failed = Math.max(...ours.map((r) => r.failed));
  const load = `load ${fmt(paired.load.before, 1)} before, ${fmt(paired.load.after, 1)} after`;
  o.say(`polled text: paired ratio ${formatPaired(paired)}; PATCHes answered after ${fmt(mid((r) => r.patchSeconds))} s of ${fmt(paired.ours)} s`);
  const rows: Row[] = [
    {
      measurement: `${o.count} texts of ${p.chars} characters, ${p.perPatch} per PATCH, client polling GET every ${p.pollMs} ms, 1 worker process (WORKER_CONCURRENCY=${o.concurrency})`,
      result: `${fmt(o.count / paired.ours, 0)} sources/s (${fmt(paired.ours)} s, PATCHes done at ${fmt(mid((r) => r.patchSeconds))} s), ${failed} failed; ${load}`,
      reference: 'bare BullMQ no-op jobs, same Redis',
      referenceResult: `${fmt(o.count / paired.reference, 0)} jobs/s (${fmt(paired.reference)} s)`,
      ratio: formatPaired(paired),
      target: '>= 0.5',
    },
    {
      measurement: 'the same run: what each text costs (medians of the runs)',
      result: `worker ${fmt(mid((r) => r.workerCpuMsPerJob), 3)} ms CPU, API ${fmt(mid((r) => r.apiCpuMsPerJob), 3)} ms CPU (PATCHes and GETs); ${costText(cost)}`,
      reference: 'the client\'s GETs',
      referenceResult: `${fmt(mid((r) => r.gets), 0)} GETs, median ${fmt(mid((r) => r.getP50Ms), 0)} ms, slowest ${fmt(mid((r) => r.getMaxMs), 0)} ms, largest body ${fmt(mid((r) => r.getMaxBytes) / 1e6, 2)} MB`,
      ratio: undefined,
      target: '',
    },
  ];
  return { rows, result: { ...p, count: o.count, paired, redisCost: cost } };
}
