import { extractText } from '../index.js';
import { warmUpPdf } from './warm-up-pdf.js';

/** Wall-clock bound of a child's warm-up: past it, the warm-up stops at the next page, however far it got. */
export const WARM_UP_BUDGET_MS = 3_000;

const STOPPED = new Error('warm-up stopped');

/** Any settings do: the cut's code and the tokenizer are the same for all. */
const WARM_UP_CHUNKING = { maxTokens: 512, overlapTokens: 0 };

/**
 * Extracts {@link warmUpPdf} as a request would (type detection, pdf.js,
 * the page rebuild, Markdown to text, the cut into chunks) and throws the
 * result away, so that V8 has compiled that code, and the tokenizer has
 * built its rank table, before a child's first real document. It stops
 * at the next page once `signal` aborts (a request came) or `budgetMs`
 * passed. Resolves to the pages read; never rejects.
 */
export async function warmUpPdfReading(signal: AbortSignal, budgetMs = WARM_UP_BUDGET_MS): Promise<number> {
  const deadline = performance.now() + budgetMs;
  let pages = 0;
  const onProgress = (): void => {
    if (signal.aborted || performance.now() > deadline) throw STOPPED;
    pages++;
  };
  if (!signal.aborted) await extractText(warmUpPdf(), { filename: 'warm-up.pdf', maxTextChars: 1_000_000, maxPdfPages: 100, chunking: WARM_UP_CHUNKING, onProgress }).catch(() => undefined);
  return pages;
}
