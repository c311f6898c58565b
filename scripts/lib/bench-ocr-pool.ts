/**
 * OCR through the sandbox pool beside bare `tesseract` on the same page
 * images, run in turns so that both see the same machine: pages per second
 * of each and their ratio, and the peak memory of the pool's child with its
 * tesseract process.
 */
import { SandboxPool, type SandboxLimits } from '../../worker/sandbox-pool.js';
import type { OcrSettings } from '../../worker/extractors/pdf/ocr/settings.js';
import type { Extraction } from '../../worker/extractors/index.js';
import { rssSampler } from './bench-util.js';
import { nativeTesseract } from './bench-ocr-engines.js';

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

/** Pool and bare tesseract in turns, `runs` times each; the medians are taken by the caller. */
export async function poolBesideBare(pdf: Uint8Array, pgms: Buffer[], ocr: OcrSettings, memoryMb: number, runs: number) {
  const pool = new SandboxPool({ size: 1, limits: benchLimits(ocr, memoryMb), maxJobs: 1000 });
  await pool.ready();
  const rows: Array<{ pool: PoolRun; bareS: number }> = [];
  try {
    for (let i = 0; i < runs; i++) {
      const viaPool = await throughPool(pool, pdf);
      const bare = await nativeTesseract(pgms, ocr.languages, 300);
      rows.push({ pool: viaPool, bareS: bare.wallS });
    }
  } finally {
    await pool.close();
  }
  return rows;
}
