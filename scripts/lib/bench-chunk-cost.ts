import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median } from './bench-util.js';

type TokenizerModule = typeof import('../../worker/chunking/tokenizer.js');
type CutModule = typeof import('../../worker/chunking/cut-chunks.js');
type NormalizeModule = typeof import('../../worker/extractors/common/normalize.js');

/** Microseconds per text of each step a text job runs in the worker's own process. */
export interface ChunkCost {
  texts: number;
  normalizeUs: number;
  countTokensUs: number;
  cutChunksUs: number;
}

const load = async <T>(distDir: string, file: string): Promise<T> => (await import(pathToFileURL(resolve(distDir, file)).href)) as T;

/**
 * Times the compiled tokenizer and chunker over `texts` as a text job runs
 * them (normalize, then cut with the default 512/0 settings), after one
 * warm-up pass: the median of `rounds` passes, per text.
 */
export async function chunkCost(distDir: string, texts: string[], rounds = 5): Promise<ChunkCost> {
  const { countTokens } = await load<TokenizerModule>(distDir, 'worker/chunking/tokenizer.js');
  const { cutChunks } = await load<CutModule>(distDir, 'worker/chunking/cut-chunks.js');
  const { normalizeText } = await load<NormalizeModule>(distDir, 'worker/extractors/common/normalize.js');
  const settings = { maxTokens: 512, overlapTokens: 0 };
  const perText = (step: (t: string) => unknown): number => {
    const passes: number[] = [];
    for (let r = 0; r <= rounds; r++) {
      const started = performance.now();
      for (const t of texts) step(t);
      // Pass 0 warms the encoder and the JIT up.
      if (r > 0) passes.push(((performance.now() - started) * 1000) / texts.length);
    }
    return median(passes);
  };
  return {
    texts: texts.length,
    normalizeUs: perText((t) => normalizeText(t)),
    countTokensUs: perText((t) => countTokens(t)),
    cutChunksUs: perText((t) => cutChunks(t, settings)),
  };
}
