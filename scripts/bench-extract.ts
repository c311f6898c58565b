/**
 * Runs every corpus file through the extraction sandbox and prints, per
 * format: counts by outcome, median and p95 wall time, throughput, peak child
 * RSS, and for PDF/DOCX the ratio of extracted characters to the reference
 * tools' text (pdftotext, pandoc). Figures are printed, not asserted.
 *
 *   npx tsx scripts/bench-extract.ts [--dist [dir]] [--concurrency 2] [--files]
 *
 * `--dist` uses the compiled worker in `dist/` or `dir` (run `npm run build` first), so the
 * children run plain JavaScript as in production instead of TypeScript via tsx.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { detectType } from '../shared/formats/detect-type.js';
import { corpusDir, corpusFiles, corpusPresent, referencePath } from '../test/corpus/corpus-files.js';
import type { SandboxStats } from '../worker/sandbox/sandbox.js';

type SandboxModule = typeof import('../worker/sandbox/sandbox.js');

const args = process.argv.slice(2);
const useDist = args.includes('--dist');
const distArg = args[args.indexOf('--dist') + 1];
const distDir = distArg && !distArg.startsWith('--') ? distArg : 'dist';
const concurrency = Number(args[args.indexOf('--concurrency') + 1]) || 2;
const limits = { timeoutMs: 120_000, memoryMb: 1024, maxTextChars: 5_000_000, maxPdfPages: 2000 };

interface Row { rel: string; format: string; outcome: string; ms: number; bytes: number; rssMb: number; chars: number; refChars?: number }

const nonSpace = (s: string) => (s.match(/[\p{L}\p{N}]/gu) ?? []).length;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? 0;
const median = (xs: number[]) => pct(xs, 0.5);

async function main(): Promise<void> {
  const root = corpusDir();
  if (!corpusPresent(root)) {
    console.error(`No corpus at ${root}; set CORPUS_DIR.`);
    process.exitCode = 1;
    return;
  }
  const { extractInSandbox } = (useDist
    ? await import(pathToFileURL(resolve(distDir, 'worker/sandbox/sandbox.js')).href)
    : await import('../worker/sandbox/sandbox.js')) as SandboxModule;

  // Child start-up: a five-byte text file, end to end, best of five.
  const startup: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await extractInSandbox(new TextEncoder().encode('hello'), { filename: 'a.txt' }, limits);
    startup.push(performance.now() - t);
  }

  const files = corpusFiles(root);
  const rows: Row[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let i = next++; i < files.length; i = next++) {
      const file = files[i]!;
      const bytes = readFileSync(file.path);
      const detection = await detectType(bytes, { filename: file.filename }, true);
      let stats: SandboxStats | undefined;
      const result = await extractInSandbox(bytes, { filename: file.filename }, limits, (s) => (stats = s)).then(
        (r) => ({ outcome: 'ready', chars: nonSpace(r.text) }),
        (e: { code?: string }) => ({ outcome: `failed/${e.code ?? 'unknown'}`, chars: 0 }),
      );
      const ref = referencePath(root, file.rel);
      rows.push({
        rel: file.rel,
        format: detection.ok ? detection.format : 'unsupported',
        outcome: result.outcome,
        ms: stats?.wallMs ?? 0,
        bytes: bytes.length,
        rssMb: stats?.peakRssMb ?? 0,
        chars: result.chars,
        ...(ref && result.outcome === 'ready' ? { refChars: nonSpace(readFileSync(ref, 'utf8')) } : {}),
      });
    }
  }));
  const totalS = (performance.now() - started) / 1000;
  if (args.includes('--files')) {
    for (const r of rows.sort((a, b) => a.rel.localeCompare(b.rel))) {
      const ratio = r.refChars ? (r.chars / r.refChars).toFixed(2) : '';
      console.log(`${r.rel.padEnd(56)} ${r.outcome.padEnd(30)} ${r.ms.toFixed(0).padStart(6)} ms ${String(r.rssMb).padStart(5)} MB ${ratio}`);
    }
  }

  console.log(`corpus ${root}: ${files.length} files, concurrency ${concurrency}, ${useDist ? 'compiled JS' : 'TypeScript via tsx'} children`);
  console.log(`child start-up (5-byte txt, round trip): best ${Math.min(...startup).toFixed(0)} ms, median ${median(startup).toFixed(0)} ms`);
  console.log(`total wall time ${totalS.toFixed(1)} s\n`);
  console.log('format       files  outcomes                                  median ms  p95 ms   MB/s  peak RSS MB  chars/ref (median, min-max)');
  for (const format of [...new Set(rows.map((r) => r.format))].sort()) {
    const rs = rows.filter((r) => r.format === format);
    const counts = new Map<string, number>();
    for (const r of rs) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
    const outcomes = [...counts].map(([k, v]) => `${k}:${v}`).join(' ');
    const mbps = rs.reduce((a, r) => a + r.bytes, 0) / 1024 / 1024 / (rs.reduce((a, r) => a + r.ms, 0) / 1000);
    const ratios = rs.filter((r) => r.refChars).map((r) => r.chars / (r.refChars ?? 1));
    const ratio = ratios.length ? `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}, n=${ratios.length})` : '';
    console.log(
      `${format.padEnd(12)} ${String(rs.length).padStart(5)}  ${outcomes.padEnd(40)} ${median(rs.map((r) => r.ms)).toFixed(0).padStart(9)} ${pct(rs.map((r) => r.ms), 0.95).toFixed(0).padStart(7)} ${mbps.toFixed(2).padStart(6)} ${String(Math.max(...rs.map((r) => r.rssMb))).padStart(12)}  ${ratio}`,
    );
  }
}

await main();
