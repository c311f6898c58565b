import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { SourceFormat } from '../../shared/formats/formats.js';
import type { SourceProgress } from '../../shared/schemas/knowledge-base.js';
import { SourceError } from '../../shared/source-errors.js';
import { ADDRESS_SPACE_HEADROOM_MB, LIMITED_ENV, LIMITED_NODE_FLAGS, withAddressSpaceLimit } from './address-space.js';
import type { ChunkingOptions, ExtractOptions } from '../extractors/types.js';
import type { OcrSettings } from '../extractors/pdf/ocr/settings.js';
import type { Extraction } from '../extractors/index.js';
import type { PagesRead } from '../extractors/pdf/index.js';
import { PARENT_DEATH_SIGNAL_ARG, withParentDeathSignal } from './orphan-watch.js';
import type { ChildMessage, ChildRangesWanted, ChildReply, ChildRequest, ChildResult, RangeRead } from './sandbox-protocol.js';

/** Bounds of one sandboxed extraction. */
export interface SandboxLimits {
  /** Wall-clock limit from the moment a child is assigned to the answer; the child is SIGKILLed after it (`timeout`). */
  timeoutMs: number;
  /** JS heap cap and resident-set cap of a child; over it, SIGKILL and `too_complex`. */
  memoryMb: number;
  /**
   * Address-space limit (RLIMIT_AS) of a child in MB, set by the OS before
   * node starts, so no allocation, however fast, gets past it. Default
   * `memoryMb` + {@link ADDRESS_SPACE_HEADROOM_MB}; 0 leaves it unlimited.
   */
  addressSpaceMb?: number;
  maxTextChars: number;
  maxPdfPages: number;
  maxDocxUnpackedBytes?: number;
  maxHtmlDepth?: number;
  /** The deployment's format policy; default the contract's five. */
  acceptedFormats?: readonly SourceFormat[];
  /** OCR of scanned PDF pages and images; absent, nothing is OCR'd. */
  ocr?: OcrSettings;
  /** Split the Markdown into chunks in the child (the tokenizer's CPU stays off the worker's event loop). */
  chunking?: ChunkingOptions;
}

/**
 * V8 optimizes a function once it has run through a budget of bytecode
 * (67,584 bytes in Node 20's V8). A child lives for at most
 * `SANDBOX_MAX_JOBS` documents, and with that budget a fresh one optimized
 * about 1,170 functions of pdf.js and the page rebuild in its first pass over
 * the corpus PDFs, 13 s of compiler time beside 16 s of extraction, many of
 * them warm only for a while and compiled again after a deoptimization; on
 * two cores the compiler's threads take that CPU from the other child. Four
 * times the budget leaves about 790 compiles (6.4 s) in the first pass, and
 * the same speed once warm. See docs/performance.md.
 */
const CHILD_V8_FLAGS = ['--interrupt-budget=270336'];

/** What one extraction is told besides the pool's limits: name hints, and the chunking of its knowledge base. */
export interface ExtractHints {
  filename?: string;
  declaredType?: string;
  /** Overrides the pool's `limits.chunking` for this extraction. */
  chunking?: ChunkingOptions;
  /** Only cut stored Markdown into chunks (see ExtractOptions.cutOnly). */
  cutOnly?: ExtractOptions['cutOnly'];
}

/** How a child's warm-up went; see {@link SandboxPoolOptions.warmUp}. */
export interface WarmUpReport {
  pid?: number;
  /** Pages of the warm-up PDF read; 0 without a warm-up. */
  pages: number;
  ms: number;
  /** A job came before the warm-up was done. */
  stopped: boolean;
}

/** How one sandboxed run went, for metrics and the benchmark. */
export interface SandboxStats {
  outcome: 'ok' | 'failed' | 'timeout' | 'memory' | 'crashed';
  wallMs: number;
  /** Highest resident set of the child seen during the job (watchdog samples and the child's own report). */
  peakRssMb: number;
  /** The child that ran the job. */
  pid?: number;
  /** PDF: page ranges of the document that other children read for this job. */
  rangesLent?: number;
}

export interface SandboxPoolOptions {
  /** Number of children, and so of extractions at once (the worker passes WORKER_CONCURRENCY). */
  size: number;
  limits: SandboxLimits;
  /** A child is replaced after this many jobs. Default 200. */
  maxJobs?: number;
  /** A child whose RSS is still above this after a job and a garbage collection is replaced. Default half of `limits.memoryMb`. */
  recycleRssMb?: number;
  /** Start children at once and replace one as soon as it goes (default); false starts them on demand. */
  warm?: boolean;
  /**
   * In a warm pool, each child extracts a small PDF built in code once ready
   * (see `pdf/warm-up.ts`), so pdf.js's code is compiled before the first
   * document; a job that comes meanwhile stops it at the next page.
   * {@link ready} waits for it. Default: on for compiled children, off under
   * tsx (tests and development), where it would cost more than it saves.
   */
  warmUp?: boolean;
  /** Told when a child's warm-up ended (pages read, wall time, whether a job stopped it). */
  onWarmUp?: (warm: WarmUpReport) => void;
  /** Path of the child's entry module. Default `extract-child`; tests pass a child with fault hooks. */
  childModule?: string;
  /** How often the RSS watchdog samples a busy child, in ms. Default 100; 0 turns the watchdog off. */
  rssPollMs?: number;
  /** Told once when the address-space limit cannot be set on this platform (the worker logs it). */
  onWarning?: (message: string) => void;
  /** Wraps a child's command line in the address-space limit; tests pass one that finds no way to. */
  limitCommand?: typeof withAddressSpaceLimit;
}

// Under vitest or tsx this module is TypeScript, and so is the child it starts.
const IS_TS = import.meta.url.endsWith('.ts');
const EXTRACT_CHILD = fileURLToPath(new URL(IS_TS ? './extract-child.ts' : './extract-child.js', import.meta.url));
const TS_LOADER = IS_TS ? pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href : undefined;
const WATCH_MS = 100;
// How long after a child's exit its IPC channel may still deliver what it sent before it died.
const EXIT_GRACE_MS = 2_000;
// The child inherits nothing from the worker: no Redis URL, no passwords, no proxy settings.
const CHILD_ENV: NodeJS.ProcessEnv = { NODE_ENV: 'production', TZ: 'UTC', LANG: 'C.UTF-8' };

interface Child {
  proc: ChildProcess;
  /** Resolves when the parsers are loaded; rejects if the child dies first. */
  ready: Promise<void>;
  /** Resolves when the child's warm-up ended (at once without one); rejects if the child dies first. */
  warmed: Promise<void>;
  /** Resolves once the process is gone. */
  gone: Promise<void>;
  exited: boolean;
  jobs: number;
  onReply?: (reply: ChildReply) => void;
  onProgress?: (progress: SourceProgress) => void;
  onRanges?: (wanted: ChildRangesWanted) => void;
  onExit?: (code: number | null, signal: NodeJS.Signals | null) => void;
}

interface Waiter {
  resolve(slot: number): void;
  reject(err: Error): void;
}

/**
 * A bounded pool of long-lived sandbox children. Each child starts under an
 * address-space limit set by the OS (`prlimit`, or `ulimit -v`), so an
 * allocation past it fails at once, whatever its speed. Each job gets one
 * child to itself: a timer bounds its wall clock and a watchdog polls the
 * child's RSS every 100 ms (ArrayBuffers escape the heap cap); either
 * SIGKILLs the child, which takes only that job down, and a fresh child takes
 * its place. A refused allocation or a V8 heap abort ends the job as the
 * memory limit too, and the child is replaced. A child is also replaced after
 * `maxJobs` jobs or when its memory stays high, so a slow leak in a parser
 * cannot build up. Errors thrown in the child come back as
 * {@link SourceError} with the same code; a child that dies otherwise fails
 * its job as `internal`, retryable.
 */
export class SandboxPool {
  readonly size: number;
  private readonly limits: SandboxLimits;
  private readonly maxJobs: number;
  private readonly recycleRssMb: number;
  private readonly warm: boolean;
  private readonly warmUp: boolean;
  private readonly onWarmUp: ((warm: WarmUpReport) => void) | undefined;
  private readonly childModule: string;
  private readonly rssPollMs: number;
  private readonly addressSpaceMb: number;
  private readonly limitCommand: typeof withAddressSpaceLimit;
  private readonly children: (Child | undefined)[];
  private readonly free: number[];
  private readonly waiters: Waiter[] = [];
  /** Children lent to read a page range of another job's PDF, by slot: how to stop that read. */
  private readonly lent = new Map<number, () => void>();
  private closed = false;
  private abandonRunning = false;

  constructor(opts: SandboxPoolOptions) {
    this.size = opts.size;
    this.limits = opts.limits;
    this.maxJobs = opts.maxJobs ?? 200;
    this.recycleRssMb = opts.recycleRssMb ?? Math.floor(opts.limits.memoryMb / 2);
    this.warm = opts.warm ?? true;
    this.warmUp = this.warm && (opts.warmUp ?? !IS_TS);
    this.onWarmUp = opts.onWarmUp;
    this.childModule = opts.childModule ?? EXTRACT_CHILD;
    this.rssPollMs = opts.rssPollMs ?? WATCH_MS;
    this.addressSpaceMb = opts.limits.addressSpaceMb ?? opts.limits.memoryMb + ADDRESS_SPACE_HEADROOM_MB;
    this.limitCommand = opts.limitCommand ?? withAddressSpaceLimit;
    if (this.addressSpaceMb > 0 && !this.limitCommand(this.addressSpaceMb, [process.execPath])) {
      opts.onWarning?.('neither prlimit nor a shell with ulimit -v was found: sandbox children run without an address-space limit, under the RSS watchdog alone');
    }
    this.children = Array.from({ length: this.size }, () => (this.warm ? this.spawn() : undefined));
    this.free = Array.from({ length: this.size }, (_, i) => i);
  }

  /** Resolves once every child has loaded its parsers and ended its warm-up; rejects if one cannot start. */
  async ready(): Promise<void> {
    await Promise.all(this.children.map((c) => c?.warmed));
  }

  /** Process ids of the live children. */
  get pids(): number[] {
    return this.children.flatMap((c) => (c && !c.exited && c.proc.pid !== undefined ? [c.proc.pid] : []));
  }

  /** Extracts `bytes` in a child, waiting for a free one first. */
  async extract(
    bytes: Uint8Array,
    hints: ExtractHints,
    observe?: (stats: SandboxStats) => void,
    onProgress?: (progress: SourceProgress) => void,
  ): Promise<Extraction> {
    const { limits } = this;
    const { chunking, ...names } = hints;
    const opts = {
      ...names,
      maxTextChars: limits.maxTextChars,
      maxPdfPages: limits.maxPdfPages,
      ...(limits.maxDocxUnpackedBytes !== undefined ? { maxDocxUnpackedBytes: limits.maxDocxUnpackedBytes } : {}),
      ...(limits.maxHtmlDepth !== undefined ? { maxHtmlDepth: limits.maxHtmlDepth } : {}),
      ...(chunking ?? limits.chunking ? { chunking: chunking ?? limits.chunking } : {}),
      ...(limits.acceptedFormats ? { acceptedFormats: limits.acceptedFormats } : {}),
      ...(limits.ocr ? { ocr: limits.ocr } : {}),
    };
    const slot = await this.acquire();
    try {
      const request: ChildRequest = { bytes, opts, ...(this.size > 1 ? { shareParts: this.size } : {}) };
      const result = await this.runOn(slot, request, observe, onProgress);
      if (!('extraction' in result)) throw new SourceError('internal', 'The extraction process answered with pages instead of an extraction.');
      return result.extraction;
    } finally {
      this.release(slot);
    }
  }

  /**
   * Has the ranges a child extracting a PDF asks for read by the children
   * free right now, each under the pool's limits, and sends each result back
   * to it (no pages for a range no child took or could read: the asking
   * child reads those itself). Children busy with other jobs are not waited
   * for, and a job that comes while every child is busy takes a lent child
   * back (see {@link acquire}): ranges only use children nobody else wants,
   * so one long PDF never holds up the jobs behind it. Returns a function that
   * stops the reads still running, for when the asking job ends first.
   */
  private lendChildren(asker: Child, request: ChildRequest, wanted: ChildRangesWanted, observe: (stats: SandboxStats) => void): () => void {
    const stops: Array<() => void> = [];
    wanted.ranges.forEach((range, index) => {
      const answer = (pages?: PagesRead): void => {
        if (!asker.exited) asker.proc.send({ type: 'range', id: wanted.id, index, ...(pages ? { pages } : {}) } satisfies RangeRead);
      };
      const slot = this.closed ? undefined : this.free.pop();
      if (slot === undefined) return answer();
      const { chunking: _, ...opts } = request.opts;
      const onStart = (stop: () => void): void => {
        stops.push(stop);
        this.lent.set(slot, stop);
      };
      this.runOn(slot, { bytes: request.bytes, opts, pdfRange: range }, observe, undefined, onStart)
        .then((result) => answer('pages' in result ? result.pages : undefined), () => answer())
        .finally(() => {
          this.lent.delete(slot);
          this.release(slot);
        });
    });
    return () => stops.forEach((stop) => stop());
  }

  /**
   * Kills every child and waits until they are gone. Waiting jobs fail as
   * retryable; so do running ones, unless `abandonRunning` leaves them
   * unsettled for good (a worker past its shutdown grace period writes
   * nothing more and lets another replica take the jobs over).
   */
  async close(opts: { abandonRunning?: boolean } = {}): Promise<void> {
    this.closed = true;
    this.abandonRunning = opts.abandonRunning ?? false;
    for (const w of this.waiters.splice(0)) w.reject(shuttingDown());
    const children = this.children.splice(0).filter((c): c is Child => c !== undefined);
    for (const c of children) if (!c.exited) c.proc.kill('SIGKILL');
    await Promise.all(children.map((c) => c.gone));
  }

  /**
   * A free child's slot, else the next one released. When every child is busy
   * and one of them only reads a range lent to another job, that read is
   * stopped (its child replaced; the asking child reads the range itself) and
   * its slot goes to this job.
   */
  private acquire(): Promise<number> {
    if (this.closed) return Promise.reject(shuttingDown());
    const slot = this.free.pop();
    if (slot !== undefined) return Promise.resolve(slot);
    const waiting = new Promise<number>((resolve, reject) => this.waiters.push({ resolve, reject }));
    const [lentSlot, stop] = this.lent.entries().next().value ?? [];
    if (lentSlot !== undefined && stop) {
      this.lent.delete(lentSlot);
      stop();
    }
    return waiting;
  }

  /** Children reading a page range lent to another job right now. */
  get lentChildren(): number {
    return this.lent.size;
  }

  private release(slot: number): void {
    const next = this.waiters.shift();
    if (next) next.resolve(slot);
    else this.free.push(slot);
  }

  private runOn(
    slot: number,
    request: ChildRequest,
    observe?: (stats: SandboxStats) => void,
    onProgress?: (progress: SourceProgress) => void,
    onStart?: (stop: () => void) => void,
  ): Promise<ChildResult> {
    // close() may have run while this job waited for its slot.
    if (this.closed) return Promise.reject(shuttingDown());
    let child = this.children[slot];
    if (!child || child.exited) child = this.children[slot] = this.spawn();
    const c = child;
    const { timeoutMs, memoryMb } = this.limits;
    return new Promise((resolve, reject) => {
      const started = performance.now();
      let peakKb = 0;
      let settled = false;
      const stopHelpers: Array<() => void> = [];
      let rangesLent = 0;

      const finish = (outcome: SandboxStats['outcome'], result: ChildResult | SourceError, keepChild = false): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearInterval(watchdog);
        for (const stop of stopHelpers) stop();
        c.onReply = c.onExit = c.onRanges = undefined;
        c.jobs++;
        if (!keepChild) this.retire(slot, c);
        observe?.({ outcome, wallMs: performance.now() - started, peakRssMb: Math.round(peakKb / 1024), pid: c.proc.pid, ...(rangesLent ? { rangesLent } : {}) });
        if (result instanceof SourceError) reject(result);
        else resolve(result);
      };

      const timer = setTimeout(() => {
        finish('timeout', new SourceError('timeout', `Extraction took longer than ${timeoutMs} ms and was stopped.`));
      }, timeoutMs);
      const watchdog =
        this.rssPollMs > 0
          ? setInterval(() => {
              void residentKb(c.proc.pid).then((kb) => {
                peakKb = Math.max(peakKb, kb);
                if (kb > memoryMb * 1024) finish('memory', overMemory(memoryMb));
              });
            }, this.rssPollMs)
          : undefined;

      c.onProgress = onProgress;
      // Another child's peak while reading pages of this document counts as this job's.
      const helped = (stats: SandboxStats) => {
        peakKb = Math.max(peakKb, stats.peakRssMb * 1024);
        if (stats.outcome === 'ok') rangesLent++;
      };
      c.onRanges = (wanted) => stopHelpers.push(this.lendChildren(c, request, wanted, helped));
      onStart?.(() => finish('crashed', new SourceError('internal', 'The document these pages belong to is no longer being extracted.', true)));
      c.onReply = (reply) => {
        peakKb = Math.max(peakKb, reply.peakRssMb * 1024);
        const keep = c.jobs + 1 < this.maxJobs && reply.rssMb <= this.recycleRssMb;
        if (reply.ok) finish('ok', 'pages' in reply ? { pages: reply.pages } : { extraction: reply.extraction }, keep);
        // The OS refused an allocation: whatever else the child holds, it goes.
        else if (reply.outOfMemory) finish('memory', overMemory(memoryMb));
        else finish('failed', new SourceError(reply.code, reply.message, reply.retryable), keep);
      };
      c.onExit = (code, signal) => {
        if (this.closed && this.abandonRunning) {
          settled = true;
          clearTimeout(timer);
          clearInterval(watchdog);
        } else if (this.closed) finish('crashed', shuttingDown());
        // V8 aborts the process when the heap cap is hit, or when the OS refuses it more heap.
        else if (signal === 'SIGABRT' || signal === 'SIGTRAP' || code === 134) finish('memory', overMemory(memoryMb));
        // Retryable: the same bytes may get through next time (the kernel's OOM killer picks on
        // whoever is big at the moment); a file that kills every child fails after JOB_ATTEMPTS.
        else finish('crashed', new SourceError('internal', `The extraction process exited unexpectedly (${signal ?? `code ${code}`}).`, true));
      };
      c.ready.then(
        () => {
          if (settled) return;
          c.proc.send(request, (err) => {
            if (err) finish('crashed', new SourceError('internal', 'The document could not be handed to the extraction process.', true));
          });
        },
        () => undefined, // onExit reports it
      );
    });
  }

  /** Kills a child that must not take another job and, in a warm pool, starts its successor at once. */
  private retire(slot: number, child: Child): void {
    if (!child.exited) child.proc.kill('SIGKILL');
    if (this.children[slot] === child) this.children[slot] = this.warm && !this.closed ? this.spawn() : undefined;
  }

  private spawn(): Child {
    const node: [string, ...string[]] = [
      process.execPath,
      `--max-old-space-size=${this.limits.memoryMb}`,
      '--expose-gc',
      ...CHILD_V8_FLAGS,
      ...LIMITED_NODE_FLAGS,
      ...(TS_LOADER ? ['--import', TS_LOADER] : []),
      this.childModule,
      String(this.recycleRssMb),
      this.warmUp ? 'warm-up' : this.warm ? 'warm' : 'lazy',
    ];
    // With a parent-death signal the kernel ends an orphaned child; without, the child watches its parent itself.
    const argv = withParentDeathSignal([...node, PARENT_DEATH_SIGNAL_ARG]) ?? node;
    // The wrappers exec node, so the pid is node's and the IPC channel (fd 3) passes through.
    const { command, args } = (this.addressSpaceMb > 0 && this.limitCommand(this.addressSpaceMb, argv)) || { command: argv[0], args: argv.slice(1) };
    const proc = spawn(command, args, {
      env: { ...CHILD_ENV, ...LIMITED_ENV },
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    let markReady!: () => void;
    let failReady!: (err: Error) => void;
    let markWarmed!: () => void;
    let failWarmed!: (err: Error) => void;
    let markGone!: () => void;
    const child: Child = {
      proc,
      ready: new Promise<void>((resolve, reject) => ((markReady = resolve), (failReady = reject))),
      warmed: new Promise<void>((resolve, reject) => ((markWarmed = resolve), (failWarmed = reject))),
      gone: new Promise<void>((resolve) => (markGone = resolve)),
      exited: false,
      jobs: 0,
    };
    child.ready.catch(() => undefined);
    child.warmed.catch(() => undefined);
    let exitGrace: NodeJS.Timeout | undefined;
    const exit = (code: number | null, signal: NodeJS.Signals | null): void => {
      clearTimeout(exitGrace);
      if (child.exited) return;
      child.exited = true;
      const early = new Error(`the extraction process exited before it was ready (${signal ?? `code ${code}`})`);
      failReady(early);
      failWarmed(early);
      child.onExit?.(code, signal);
      markGone();
    };
    proc.on('message', (message: ChildMessage) => {
      if (message.type === 'ready') markReady();
      else if (message.type === 'warm') {
        markWarmed();
        this.onWarmUp?.({ pid: proc.pid, pages: message.pages, ms: message.ms, stopped: message.stopped });
      }
      else if (message.type === 'progress') child.onProgress?.(message.progress);
      else if (message.type === 'ranges') child.onRanges?.(message);
      else child.onReply?.(message);
    });
    // 'close' comes after the IPC channel drained, so a reply sent just before exit is never lost.
    proc.once('close', exit);
    // It may never come: a process that inherited the channel keeps it open, and a child
    // SIGKILLed while a large request was still being written to it was seen to leave
    // 'close' out (close() then waited for good, and the worker's event loop ran dry).
    // Past a grace period after its exit, the child counts as gone and its channel is let go.
    proc.once('exit', (code, signal) => {
      exitGrace = setTimeout(() => {
        if (proc.connected) proc.disconnect();
        exit(code, signal);
      }, EXIT_GRACE_MS);
    });
    proc.once('error', () => {
      if (proc.pid !== undefined && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      else exit(null, null);
    });
    return child;
  }
}

function shuttingDown(): SourceError {
  return new SourceError('internal', 'The extraction pool was closed; the extraction can be retried.', true);
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
