import { fork } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SourceError } from '../shared/source-errors.js';
import type { ChildReply, ChildRequest } from './extract-child.js';
import type { Extraction } from './extractors/index.js';
import type { ChunkingOptions } from './extractors/types.js';

/** Bounds of one sandboxed extraction. */
export interface SandboxLimits {
  /** Wall-clock limit from fork to answer; the child is SIGKILLed after it (`timeout`). */
  timeoutMs: number;
  /** JS heap cap and resident-set cap of the child; over it, SIGKILL and `too_complex`. */
  memoryMb: number;
  maxTextChars: number;
  maxPdfPages: number;
  maxDocxUnpackedBytes?: number;
  maxHtmlDepth?: number;
  /** Split the Markdown into chunks in the child (the tokenizer's CPU stays off the worker's event loop). */
  chunking?: ChunkingOptions;
}

/** How one sandboxed run went, for metrics and the benchmark. */
export interface SandboxStats {
  outcome: 'ok' | 'failed' | 'timeout' | 'memory' | 'crashed';
  wallMs: number;
  /** Highest VmRSS seen by the watchdog (0 where /proc is missing). */
  peakRssMb: number;
  /** The child's process id; it has been killed or has exited by the time stats are reported. */
  pid?: number;
}

// Under vitest or tsx this module is TypeScript, and so is the child it starts.
const IS_TS = import.meta.url.endsWith('.ts');
const CHILD = fileURLToPath(new URL(IS_TS ? './extract-child.ts' : './extract-child.js', import.meta.url));
const TS_LOADER = IS_TS ? pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href : undefined;
const WATCH_MS = 100;

/**
 * Runs {@link extractText} in a child process, so a hostile file only kills
 * its own child. The child gets `--max-old-space-size`; a watchdog polls its
 * RSS every 100 ms (ArrayBuffers escape the heap cap) and a timer bounds the
 * wall clock; either SIGKILLs it. Errors thrown in the child come back as
 * {@link SourceError} with the same code. The child never outlives the call.
 *
 * Cost of isolation, measured on the 2-core reference machine: a child starts,
 * loads the text parsers and answers for a tiny text file in ~140 ms (compiled
 * JS; ~450 ms as TypeScript under tsx) with ~50 MB RSS; pdf.js adds ~40 MB.
 */
export async function extractInSandbox(
  bytes: Uint8Array,
  hints: { filename?: string; declaredType?: string },
  limits: SandboxLimits,
  observe?: (stats: SandboxStats) => void,
): Promise<Extraction> {
  const opts = {
    ...hints,
    maxTextChars: limits.maxTextChars,
    maxPdfPages: limits.maxPdfPages,
    ...(limits.maxDocxUnpackedBytes !== undefined ? { maxDocxUnpackedBytes: limits.maxDocxUnpackedBytes } : {}),
    ...(limits.maxHtmlDepth !== undefined ? { maxHtmlDepth: limits.maxHtmlDepth } : {}),
    ...(limits.chunking ? { chunking: limits.chunking } : {}),
  };
  return runInSandbox({ bytes, opts }, limits, observe);
}

/** {@link extractInSandbox} with the raw child request; tests use it to reach the child's test hook. */
export function runInSandbox(request: ChildRequest, limits: SandboxLimits, observe?: (stats: SandboxStats) => void): Promise<Extraction> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = fork(CHILD, [], {
      execArgv: [`--max-old-space-size=${limits.memoryMb}`, ...(TS_LOADER ? ['--import', TS_LOADER] : [])],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    let peakKb = 0;
    let settled = false;

    const finish = (outcome: SandboxStats['outcome'], result: Extraction | SourceError): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(watchdog);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      observe?.({ outcome, wallMs: performance.now() - started, peakRssMb: Math.round(peakKb / 1024), pid: child.pid });
      if (result instanceof SourceError) reject(result);
      else resolve(result);
    };

    const timer = setTimeout(() => {
      finish('timeout', new SourceError('timeout', `Extraction took longer than ${limits.timeoutMs} ms and was stopped.`));
    }, limits.timeoutMs);
    const watchdog = setInterval(() => {
      void residentKb(child.pid).then((kb) => {
        peakKb = Math.max(peakKb, kb);
        if (kb > limits.memoryMb * 1024) finish('memory', overMemory(limits.memoryMb));
      });
    }, WATCH_MS);

    child.on('message', (reply: ChildReply) => {
      if (reply.ok) finish('ok', reply.extraction);
      else finish('failed', new SourceError(reply.code, reply.message, reply.retryable));
    });
    child.on('error', () => finish('crashed', new SourceError('internal', 'The extraction process could not be started.', true)));
    // 'close' comes after the IPC channel drained, so a reply sent just before exit is never lost.
    child.on('close', (code, signal) => {
      // V8 aborts the process when the heap cap is hit.
      if (signal === 'SIGABRT' || signal === 'SIGTRAP' || code === 134) finish('memory', overMemory(limits.memoryMb));
      else finish('crashed', new SourceError('internal', `The extraction process exited unexpectedly (${signal ?? `code ${code}`}).`));
    });
    child.send(request, (err) => {
      if (err) finish('crashed', new SourceError('internal', 'The document could not be handed to the extraction process.', true));
    });
  });
}

function overMemory(memoryMb: number): SourceError {
  return new SourceError('too_complex', `Extraction needed more than the ${memoryMb} MB memory limit and was stopped.`);
}

/** VmRSS of a process in kB, or 0 when it is gone or /proc is not there. */
async function residentKb(pid: number | undefined): Promise<number> {
  if (pid === undefined) return 0;
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    return Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}
