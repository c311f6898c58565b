/**
 * OCR through the sandbox pool beside bare `tesseract` on the same page
 * images, run in turns (see bench-pairs.ts) so that both see the same
 * machine: pages per second of each and their paired ratio, and the peak
 * memory of the pool's child with its tesseract process.
 */
import { SandboxPool, type SandboxLimits } from '../../worker/sandbox/sandbox-pool.js';
import type { OcrSettings } from '../../worker/extractors/pdf/ocr/settings.js';
import type { Extraction } from '../../worker/extractors/index.js';
import { rssSampler } from './bench-util.js';
import { nativeTesseract } from './bench-ocr-engines.js';
import { pairedRuns, type PairedResult } from './bench-pairs.js';

export interface PoolRun {
  extraction: Extraction;
  wallS: number;
  /** Peak RSS of the child and its tesseract, sampled every 100 ms. */
  peakTreeMb: number;
  /** The child's own peak RSS as the pool saw it. */
  peakChildMb: number;
}

export function benchLimits(ocr: OcrSettings | undefined, memoryMb: number): SandboxLimits {
  return { timeoutMs: 600_000, memoryMb, maxTextChars: 5_000_000, maxPdfPages: 2000, ...(ocr ? { ocr } : {}) };
}

/** One extraction of `pdf` through a warm pool of one child. */
export async function throughPool(pool: SandboxPool, pdf: Uint8Array): Promise<PoolRun> {
  const sampler = rssSampler(() => pool.pids);
  let peakChildMb = 0;
  const started = performance.now();
  const extraction = await pool.extract(pdf, { filename: 'bench.pdf' }, (stats) => (peakChildMb = stats.peakRssMb));
  const wallS = (performance.now() - started) / 1000;
  return { extraction, wallS, peakTreeMb: sampler.stop(), peakChildMb };
}

/**
 * Pool (ours) and bare tesseract (reference) in turns, `runs` times each
 * (at least 3), values in seconds for the whole document: the ratio is bare
 * seconds over pool seconds, the pool's share of bare tesseract's rate. The
 * child is warmed first by extracting `warmUp` (a born-digital PDF), as a
 * worker's children are by the jobs before.
 * `pgms` must be the images the pool's renderer makes of `pdf`'s pages,
 * at the same resolution: both sides then give tesseract the same pixels.
 */
export async function poolBesideBare(pdf: Uint8Array, pgms: Buffer[], warmUp: Uint8Array, ocr: OcrSettings, memoryMb: number, runs: number): Promise<{ paired: PairedResult; poolRuns: PoolRun[] }> {
  const pool = new SandboxPool({ size: 1, limits: benchLimits(ocr, memoryMb), maxJobs: 1000 });
  await pool.ready();
  const poolRuns: PoolRun[] = [];
  try {
    await throughPool(pool, warmUp);
    const paired = await pairedRuns(
      async () => {
        const run = await throughPool(pool, pdf);
        poolRuns.push(run);
        return run.wallS;
      },
      async () => (await nativeTesseract(pgms, ocr.languages, ocr.dpi ?? 300)).wallS,
      runs,
      { onRun: (r) => console.error(`  ${r.side === 'ours' ? 'pool' : 'bare'} ${r.value.toFixed(2)} s (load ${r.loadBefore.toFixed(1)})`) },
    );
    return { paired, poolRuns };
  } finally {
    await pool.close();
  }
}
