/**
 * Paired timings of extraction beside its reference tool, for one corpus file
 * or a whole corpus folder: runs alternate (ours, the reference, ours, ...),
 * each of ours through a fresh warm pool of compiled children (`--concurrency`
 * children, files `--concurrency` at a time, as one worker process runs them),
 * and the figure is the median of the ratios of adjacent pairs (reference
 * seconds / ours: above 1 means faster than the reference) with their spread.
 * `--before <dist>` adds a third run per round from another build (the code
 * before a change), so before and after come from the same rounds. The peak
 * RSS is that of the pool's children together, sampled every 100 ms. `--warm`
 * has each child read a small PDF before the timing, as in a worker that has
 * run a while.
 *
 *   npx tsx scripts/bench-extract-pair.ts --folder pdf|docx | --file <path> [--dist dist] [--before <dist>] [--rounds 3] [--concurrency 2] [--warm]
 */
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { corpusDir } from '../test/corpus/corpus-files.js';
import { buildPdf } from '../test/fixtures/pdf.js';
import { DEFAULT_LIMITS } from './lib/bench-extract-pool.js';
import { folderFiles, hasTool, MB, median, rssSampler } from './lib/bench-util.js';
import { args, flag } from './lib/cli-args.js';

type PoolModule = typeof import('../worker/sandbox/sandbox-pool.js');
const runTool = promisify(execFile);

const rounds = Number(flag('rounds') ?? 3);
const concurrency = Number(flag('concurrency') ?? 2);
const warm = args.includes('--warm');
const WARM_PDF = buildPdf({ pages: Array.from({ length: 20 }, (_, i) => `Page ${i + 1}. ${'A line of body text to read, with words. '.repeat(40)}`) });
const builds = [{ label: 'after', dir: flag('dist') ?? 'dist' }, ...(flag('before') ? [{ label: 'before', dir: flag('before')! }] : [])];

function inputFiles(): { path: string; name: string }[] {
  const file = flag('file');
  if (file) return [{ path: resolve(file), name: basename(file) }];
  return folderFiles(corpusDir(), flag('folder') ?? 'pdf');
}

/** Wall seconds and peak children RSS of the files through a fresh warm pool of one build. */
async function ours(dir: string, files: { path: string; name: string }[]): Promise<{ seconds: number; rssMb: number; failures: number }> {
  const { SandboxPool } = (await import(pathToFileURL(resolve(dir, 'worker/sandbox/sandbox-pool.js')).href)) as PoolModule;
  const pool = new SandboxPool({ size: concurrency, limits: { ...DEFAULT_LIMITS, timeoutMs: 600_000 } });
  await pool.ready();
  // --warm: each child first reads a small PDF, as the children of a worker that has run a while have
  // (pdf.js loaded and its hot paths compiled); without it the first documents pay for that.
  if (warm) await Promise.all(Array.from({ length: concurrency }, () => pool.extract(WARM_PDF, { filename: 'warm.pdf' }).catch(() => undefined)));
  const bytes = files.map((f) => readFileSync(f.path));
  const sampler = rssSampler(() => pool.pids);
  let failures = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let i = next++; i < files.length; i = next++) await pool.extract(bytes[i]!, { filename: files[i]!.name }).catch(() => failures++);
  }));
  const seconds = (performance.now() - started) / 1000;
  const rssMb = sampler.stop();
  await pool.close();
  return { seconds, rssMb, failures };
}

/** The reference tool over the same files, one process per file as a user would run it. */
async function reference(tool: string, files: { path: string }[]): Promise<number> {
  const started = performance.now();
  for (const f of files) {
    const toolArgs = tool === 'pdftotext' ? ['-q', f.path, '-'] : ['-f', 'docx', '-t', 'plain', f.path];
    await runTool(tool, toolArgs, { maxBuffer: 256 * MB }).catch(() => undefined);
  }
  return (performance.now() - started) / 1000;
}

async function main(): Promise<void> {
  const files = inputFiles();
  const tool = files.every((f) => f.name.endsWith('.pdf')) ? 'pdftotext' : 'pandoc';
  if (!(await hasTool(tool))) {
    console.error(`${tool} is not installed (apt-get install -y ${tool === 'pdftotext' ? 'poppler-utils' : 'pandoc'}); nothing to pair with.`);
    process.exitCode = 1;
    return;
  }
  const mb = files.reduce((n, f) => n + statSync(f.path).size, 0) / MB;
  const loadBefore = loadavg()[0]!;
  const ratios = new Map(builds.map((b) => [b.label, [] as number[]]));
  const rss = new Map(builds.map((b) => [b.label, 0]));
  for (let round = 0; round < rounds; round++) {
    for (const build of builds) {
      const run = await ours(build.dir, files);
      const ref = await reference(tool, files);
      ratios.get(build.label)!.push(ref / run.seconds);
      rss.set(build.label, Math.max(rss.get(build.label)!, run.rssMb));
      console.log(`round ${round + 1} ${build.label}: ${run.seconds.toFixed(2)} s (${run.failures} failed), ${tool} ${ref.toFixed(2)} s, ratio ${(ref / run.seconds).toFixed(2)}, children RSS ${run.rssMb.toFixed(0)} MB`);
    }
  }
  console.log(`\n${files.length} file(s), ${mb.toFixed(1)} MB, ${concurrency} children, ${rounds} rounds; load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after`);
  for (const build of builds) {
    const r = ratios.get(build.label)!;
    console.log(`${build.label.padEnd(7)} ${tool}/ours median ${median(r).toFixed(2)}x (${Math.min(...r).toFixed(2)}-${Math.max(...r).toFixed(2)}), peak children RSS ${rss.get(build.label)!.toFixed(0)} MB`);
  }
}

await main();
