import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SandboxLimits, SandboxStats } from '../../worker/sandbox/sandbox-pool.js';
import { folderFiles, hasTool, MB, median, referenceSeconds } from './bench-util.js';

type PoolModule = typeof import('../../worker/sandbox/sandbox-pool.js');

export const FORMATS = ['pdf', 'docx', 'html', 'md', 'txt'] as const;
const REFERENCE: Partial<Record<string, 'pdftotext' | 'pandoc'>> = { pdf: 'pdftotext', docx: 'pandoc' };
/** The worker's defaults (shared/runtime/config.ts). */
export const DEFAULT_LIMITS: SandboxLimits = {
  timeoutMs: 60_000,
  memoryMb: 1024,
  maxTextChars: 5_000_000,
  maxPdfPages: 2000,
  maxDocxUnpackedBytes: 256 * MB,
  maxHtmlDepth: 4096,
};

export interface ExtractRow {
  format: string;
  files: number;
  mb: number;
  /** Median wall time of the whole folder through the pool, children already warm. */
  seconds: number;
  allSeconds: number[];
  mbPerS: number;
  filesPerS: number;
  /** Highest RSS of one child during any job. */
  peakChildRssMb: number;
  failures: number;
  /** The three files that took longest in the last run, with their wall time. */
  slowest: { name: string; seconds: number }[];
  reference?: { tool: string; seconds: number; mbPerS: number; failures: number; ratio: number };
}

/**
 * Each format folder of the corpus through a warm pool of compiled children
 * (`concurrency` at once, as one worker process runs them), and the
 * reference tool over the same files one process per file, in the same run.
 */
export async function benchExtract(root: string, opts: { runs: number; concurrency: number; distDir: string }): Promise<ExtractRow[]> {
  const { SandboxPool } = (await import(pathToFileURL(resolve(opts.distDir, 'worker/sandbox/sandbox-pool.js')).href)) as PoolModule;
  const rows: ExtractRow[] = [];
  for (const format of FORMATS) {
    const files = folderFiles(root, format);
    if (files.length === 0) continue;
    const bytes = await Promise.all(files.map((f) => readFile(f.path)));
    const mb = files.reduce((n, f) => n + f.bytes, 0) / MB;
    const tool = REFERENCE[format];
    const useTool = tool !== undefined && (await hasTool(tool));
    const poolSeconds: number[] = [];
    const refSeconds: number[] = [];
    let peak = 0;
    let failures = 0;
    let refFailures = 0;
    let perFile: { name: string; seconds: number }[] = [];
    for (let run = 0; run < opts.runs; run++) {
      const pool = new SandboxPool({ size: opts.concurrency, limits: DEFAULT_LIMITS });
      await pool.ready();
      failures = 0;
      perFile = [];
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: opts.concurrency }, async () => {
          for (let i = next++; i < files.length; i = next++) {
            const observe = (s: SandboxStats): void => {
              peak = Math.max(peak, s.peakRssMb);
              perFile.push({ name: files[i]!.name, seconds: s.wallMs / 1000 });
            };
            await pool.extract(bytes[i]!, { filename: files[i]!.name }, observe).catch(() => failures++);
          }
        }),
      );
      poolSeconds.push((performance.now() - started) / 1000);
      await pool.close();
      if (useTool) {
        const ref = await referenceSeconds(tool, files);
        refSeconds.push(ref.seconds);
        refFailures = ref.failures;
      }
    }
    const seconds = median(poolSeconds);
    const row: ExtractRow = {
      format,
      files: files.length,
      mb,
      seconds,
      allSeconds: poolSeconds,
      mbPerS: mb / seconds,
      filesPerS: files.length / seconds,
      peakChildRssMb: peak,
      failures,
      slowest: perFile.sort((a, b) => b.seconds - a.seconds).slice(0, 3),
    };
    if (useTool) {
      const refS = median(refSeconds);
      row.reference = { tool, seconds: refS, mbPerS: mb / refS, failures: refFailures, ratio: refS / seconds };
    }
    rows.push(row);
    console.error(`extract ${format}: ${files.length} files in ${seconds.toFixed(2)} s${row.reference ? `, ${tool} ${row.reference.seconds.toFixed(2)} s` : ''}`);
  }
  return rows;
}
