/**
 * The message protocol between the sandbox pool and its children, and the
 * loop a child runs. A child announces `ready` once its parsers are loaded,
 * then `warm` once its warm-up (if any) ended, and answers one request at a
 * time, as long as the pool keeps it.
 */
import { isAllocationFailure, isSourceError, type SourceErrorCode } from '../../shared/source-errors.js';
import type { SourceProgress } from '../../shared/schemas/knowledge-base.js';
import type { ExtractOptions, Extraction } from '../extractors/index.js';
import { exitWhenOrphaned, PARENT_DEATH_SIGNAL_ARG } from './orphan-watch.js';
import type { PageRange, PagesRead } from '../extractors/pdf/index.js';

/**
 * What the parent sends: the bytes (structured-cloned over IPC, one copy) and
 * the options. `pdfRange` asks only for the lines of those pages of a PDF,
 * for the child extracting it; `shareParts`, that a PDF's pages may be cut
 * into that many ranges for idle children to read.
 */
export interface ChildRequest {
  bytes: Uint8Array;
  opts: ExtractOptions;
  pdfRange?: PageRange;
  shareParts?: number;
}

/** What a request gives: an extraction, or the pages of a `pdfRange`. */
export type ChildResult = { extraction: Extraction } | { pages: PagesRead };

/** A child extracting a PDF asks the parent to have these ranges read elsewhere. */
export type ChildRangesWanted = { type: 'ranges'; id: number; ranges: PageRange[] };

/** The parent's answer for one of them: the pages, or none when no child read it. */
export type RangeRead = { type: 'range'; id: number; index: number; pages?: PagesRead };

/**
 * The child's answer to one request. `rssMb` is its resident set once the
 * job's garbage is gone, `peakRssMb` the same before that collection.
 * `outOfMemory` marks a job stopped by an allocation the OS refused.
 */
export type ChildReply = { type: 'reply'; rssMb: number; peakRssMb: number } & Outcome;

/** How far the current request has got; sent at most every {@link PROGRESS_EVERY_MS}. */
export type ChildProgress = { type: 'progress'; progress: SourceProgress };

/**
 * Told once, when the child's warm-up ended: the pages it read, its wall time
 * in ms, and whether a request stopped it first (a child without a warm-up
 * tells 0 pages at once).
 */
export type ChildWarm = { type: 'warm'; pages: number; ms: number; stopped: boolean };

export type ChildMessage = { type: 'ready' } | ChildWarm | ChildProgress | ChildReply | ChildRangesWanted;

/**
 * What a child does once ready while no request has come: work that compiles
 * the parsers' code (see `pdf/warm-up.ts`). It must stop soon after `signal`
 * aborts, and resolve to what it read (pages); a rejection counts as 0.
 */
export type WarmUp = (signal: AbortSignal) => Promise<number>;

const PROGRESS_EVERY_MS = 250;

/** How a child turns a request into text; the production child calls `extractText`. */
export type ExtractHandler = (request: ChildRequest) => Promise<ChildResult>;

/**
 * Serves requests over IPC until the parent goes away. `argv[2]` is the RSS
 * in MB above which the child collects garbage before it reports its size,
 * so the pool recycles only a child whose memory stays high. With `warmUp`,
 * the child runs it once ready; a request that comes meanwhile stops it and
 * waits only for the step in progress.
 */
export function serveRequests(handle: ExtractHandler, warmUp?: WarmUp): void {
  if (!process.send) return;
  // A parent that died cannot kill us any more; do not outlive it, idle or busy.
  process.once('disconnect', () => process.exit(1));
  // Started under a parent-death signal (argv[4]), the kernel already kills a busy orphan.
  if (process.argv[4] !== PARENT_DEATH_SIGNAL_ARG) exitWhenOrphaned();
  const collectAboveMb = Number(process.argv[2]) || Number.POSITIVE_INFINITY;
  const ranges = rangeRequests();
  let stopWarmUp: (() => Promise<void>) | undefined;
  process.on('message', (message: ChildRequest | RangeRead) => {
    if ('type' in message) return ranges.settle(message);
    const request = message;
    if (request.shareParts && request.shareParts > 1) request.opts.pdfSharing = { parts: request.shareParts, readRanges: ranges.ask };
    let sentAt = 0;
    request.opts.onProgress = (progress) => {
      const now = Date.now();
      if (now - sentAt < PROGRESS_EVERY_MS) return;
      sentAt = now;
      process.send?.({ type: 'progress', progress } satisfies ChildProgress);
    };
    void (stopWarmUp?.() ?? Promise.resolve()).then(() => answer(handle, request)).then((outcome) => {
      const peakRssMb = process.memoryUsage.rss() / 1024 / 1024;
      let rssMb = peakRssMb;
      if (rssMb > collectAboveMb && typeof globalThis.gc === 'function') {
        globalThis.gc();
        rssMb = process.memoryUsage.rss() / 1024 / 1024;
      }
      process.send?.({ type: 'reply', rssMb: Math.round(rssMb), peakRssMb: Math.round(peakRssMb), ...outcome } satisfies ChildReply);
    });
  });
  process.send({ type: 'ready' } satisfies ChildMessage);
  stopWarmUp = startWarmUp(warmUp);
}

/** Runs `warmUp` and tells the parent when it ended; returns a function that stops it and resolves once it has. */
function startWarmUp(warmUp: WarmUp | undefined): () => Promise<void> {
  const controller = new AbortController();
  const started = performance.now();
  const ended = (warmUp ? warmUp(controller.signal).catch(() => 0) : Promise.resolve(0)).then((pages) => {
    const stopped = controller.signal.aborted;
    // The warm-up's garbage is not left for the first request's peak.
    if (warmUp && !stopped && typeof globalThis.gc === 'function') globalThis.gc();
    process.send?.({ type: 'warm', pages, ms: Math.round(performance.now() - started), stopped } satisfies ChildWarm);
  });
  return () => {
    controller.abort();
    return ended;
  };
}

type Outcome =
  | ({ ok: true } & ChildResult)
  | { ok: false; code: SourceErrorCode; message: string; retryable: boolean; outOfMemory?: true };

async function answer(handle: ExtractHandler, request: ChildRequest): Promise<Outcome> {
  try {
    return { ok: true, ...(await handle(request)) };
  } catch (err) {
    // The parent words the memory message (it knows the limit) and replaces this child.
    if (isAllocationFailure(err)) return { ok: false, code: 'too_complex', message: 'out of memory', retryable: false, outOfMemory: true };
    if (isSourceError(err)) return { ok: false, code: err.code, message: err.message, retryable: err.retryable };
    const name = err instanceof Error ? err.name : typeof err;
    // Library messages can quote document content; only the error's class leaves the child.
    return { ok: false, code: 'internal', message: `Extraction failed unexpectedly (${name}).`, retryable: false };
  }
}

/**
 * The ranges this child has asked the parent to have read elsewhere, by
 * request id. An answer for a request no longer waited on (its extraction
 * ended) is dropped.
 */
function rangeRequests(): { ask: (ranges: PageRange[]) => Array<Promise<PagesRead | undefined>>; settle: (answer: RangeRead) => void } {
  let lastId = 0;
  const waiting = new Map<number, Array<(pages: PagesRead | undefined) => void>>();
  return {
    ask(ranges) {
      const id = ++lastId;
      const promises = ranges.map((_, index) => new Promise<PagesRead | undefined>((resolve) => {
        const list = waiting.get(id) ?? [];
        list[index] = resolve;
        waiting.set(id, list);
      }));
      process.send?.({ type: 'ranges', id, ranges } satisfies ChildRangesWanted);
      return promises;
    },
    settle({ id, index, pages }) {
      const list = waiting.get(id);
      list?.[index]?.(pages);
      if (list) delete list[index];
      if (list?.every((r) => r === undefined)) waiting.delete(id);
    },
  };
}
