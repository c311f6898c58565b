import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'vitest';
import { STAMP } from '../../bin/build.mjs';
import { loadConfig } from '../../shared/runtime/config.js';
import * as sourceErrors from '../../shared/source-errors.js';
import type { SourceError } from '../../shared/source-errors.js';
import type { Extraction } from '../../worker/extractors/index.js';
import * as sandboxModule from '../../worker/sandbox/sandbox.js';
import type { SandboxLimits, SandboxStats } from '../../worker/sandbox/sandbox.js';
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

/** A sandbox module and the SourceError class its pool throws. */
export interface Sandbox {
  extractInSandbox: typeof sandboxModule.extractInSandbox;
  SandboxPool: typeof sandboxModule.SandboxPool;
  SourceError: typeof sourceErrors.SourceError;
}

/** The sandbox as the test files import it: TypeScript, its children run under tsx. */
const sourceSandbox: Sandbox = { extractInSandbox: sandboxModule.extractInSandbox, SandboxPool: sandboxModule.SandboxPool, SourceError: sourceErrors.SourceError };

/** The first file under `dir` modified after `time`, if any. */
function changedSince(dir: string, time: number): string | undefined {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const changed = entry.isDirectory() ? changedSince(path, time) : statSync(path).mtimeMs > time ? path : undefined;
    if (changed !== undefined) return changed;
  }
  return undefined;
}

/**
 * The compiled sandbox in dist/, whose children are the compiled `extract-child.js`
 * that the worker runs: a one-off child starts in about a third of the CPU time a
 * tsx child takes to load the same parsers. When dist/ is missing or older than a
 * source the child is compiled from (worker/, shared/), the TypeScript sandbox is
 * used instead, saying so: the same checks, slower, never of an earlier build.
 * (`staleReason` of bin/build.mjs looks at more: clients/, whose folder the
 * client-package test changes when it builds the client.)
 */
export async function compiledSandbox(): Promise<Sandbox> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  let built: number | undefined;
  try {
    built = statSync(join(root, STAMP)).mtimeMs;
  } catch {
    built = undefined;
  }
  const changed = built === undefined ? 'dist/' : (changedSince(join(root, 'worker'), built) ?? changedSince(join(root, 'shared'), built));
  if (built === undefined || changed !== undefined) {
    const why = built === undefined ? 'dist/ has not been built' : `${relative(root, changed!)} changed since the last build`;
    console.warn(`${why}: the TypeScript sandbox runs instead of the compiled one (slower; \`npm run build\` first to use dist/)`);
    return sourceSandbox;
  }
  const load = <T>(path: string): Promise<T> => import(pathToFileURL(join(root, 'dist', path)).href) as Promise<T>;
  const [sandbox, errors] = await Promise.all([
    load<typeof sandboxModule>('worker/sandbox/sandbox.js'),
    load<typeof sourceErrors>('shared/source-errors.js'),
  ]);
  return { extractInSandbox: sandbox.extractInSandbox, SandboxPool: sandbox.SandboxPool, SourceError: errors.SourceError };
}

/** {@link runSandboxed} and {@link expectParentCarriesOn} on `sandbox`. */
export function sandboxedRuns(sandbox: Sandbox) {
  /**
   * Extracts `bytes` in a child of its own (`extractInSandbox`), records its
   * figures under `name`, and checks that it ended within {@link ENDS_WITHIN_MS}.
   * A SourceError is returned, not thrown.
   */
  async function runSandboxed(
    name: string,
    bytes: Uint8Array,
    hints: { filename?: string } = {},
    limits: SandboxLimits = WORKER_LIMITS,
  ): Promise<SandboxedRun> {
    let stats: SandboxStats | undefined;
    const run = await sandbox.extractInSandbox(bytes, hints, limits, (s) => (stats = s)).then(
      (value): Omit<SandboxedRun, 'stats'> => ({ value }),
      (error: unknown): Omit<SandboxedRun, 'stats'> => {
        if (!(error instanceof sandbox.SourceError)) throw error;
        return { error };
      },
    );
    if (!stats) throw new Error('the sandbox pool did not report how the run went');
    figures[name] = { outcome: stats.outcome, code: run.error?.code ?? 'ok', wallMs: Math.round(stats.wallMs), peakRssMb: stats.peakRssMb };
    expect(stats.wallMs).toBeLessThan(ENDS_WITHIN_MS);
    return { ...run, stats };
  }

  /** The child that ran `run` is gone, and a fresh child extracts an ordinary document. */
  async function expectParentCarriesOn(run: SandboxedRun): Promise<void> {
    await expect.poll(() => isAlive(run.stats.pid), { timeout: 10_000 }).toBe(false);
    const after = await sandbox.extractInSandbox(buildDocx([{ para: 'still working' }]), {}, WORKER_LIMITS);
    expect(after.text).toBe('still working');
  }

  return { runSandboxed, expectParentCarriesOn };
}

export const { runSandboxed, expectParentCarriesOn } = sandboxedRuns(sourceSandbox);
