import { expect } from 'vitest';
import { loadConfig } from '../../shared/runtime/config.js';
import { SourceError } from '../../shared/source-errors.js';
import type { Extraction } from '../../worker/extractors/index.js';
import { extractInSandbox, type SandboxLimits, type SandboxStats } from '../../worker/sandbox/sandbox.js';
import { buildDocx } from '../fixtures/docx.js';
import { isAlive } from './pids.js';

const config = loadConfig({});

/** The limits worker/main.ts gives its pool, from the configuration defaults. */
export const WORKER_LIMITS: SandboxLimits = {
  timeoutMs: config.EXTRACT_TIMEOUT_MS,
  memoryMb: config.EXTRACT_MEMORY_MB,
  maxTextChars: config.MAX_TEXT_CHARS,
  maxPdfPages: config.MAX_PDF_PAGES,
  maxDocxUnpackedBytes: config.DOCX_MAX_UNPACKED_MB * 1024 * 1024,
  maxHtmlDepth: config.HTML_MAX_DEPTH,
  chunking: { maxTokens: config.CHUNK_MAX_TOKENS, overlapTokens: config.CHUNK_OVERLAP_TOKENS },
};

/** A run ends (answered or killed) this long after it started at most: the wall-clock limit and room to reap. */
export const ENDS_WITHIN_MS = WORKER_LIMITS.timeoutMs + 10_000;

/** Enough for a test that runs a bomb to the wall-clock limit and then an ordinary document. */
export const BOMB_TEST_MS = WORKER_LIMITS.timeoutMs * 2 + 30_000;

/** How one sandboxed extraction ended: its value or its error, and the pool's figures. */
export interface SandboxedRun {
  value?: Extraction;
  error?: SourceError;
  stats: SandboxStats;
}

/** Outcome, code, wall time and peak RSS of each {@link runSandboxed} call, by name. */
export const figures: Record<string, { outcome: string; code: string; wallMs: number; peakRssMb: number }> = {};

/**
 * Extracts `bytes` in a child of its own (`extractInSandbox`), records its
 * figures under `name`, and checks that it ended within {@link ENDS_WITHIN_MS}.
 * A SourceError is returned, not thrown.
 */
export async function runSandboxed(
  name: string,
  bytes: Uint8Array,
  hints: { filename?: string } = {},
  limits: SandboxLimits = WORKER_LIMITS,
): Promise<SandboxedRun> {
  let stats: SandboxStats | undefined;
  const run = await extractInSandbox(bytes, hints, limits, (s) => (stats = s)).then(
    (value): Omit<SandboxedRun, 'stats'> => ({ value }),
    (error: unknown): Omit<SandboxedRun, 'stats'> => {
      if (!(error instanceof SourceError)) throw error;
      return { error };
    },
  );
  if (!stats) throw new Error('the sandbox pool did not report how the run went');
  figures[name] = { outcome: stats.outcome, code: run.error?.code ?? 'ok', wallMs: Math.round(stats.wallMs), peakRssMb: stats.peakRssMb };
  expect(stats.wallMs).toBeLessThan(ENDS_WITHIN_MS);
  return { ...run, stats };
}

/** The child that ran `run` is gone, and a fresh child extracts an ordinary document. */
export async function expectParentCarriesOn(run: SandboxedRun): Promise<void> {
  await expect.poll(() => isAlive(run.stats.pid), { timeout: 10_000 }).toBe(false);
  const after = await extractInSandbox(buildDocx([{ para: 'still working' }]), {}, WORKER_LIMITS);
  expect(after.text).toBe('still working');
}
