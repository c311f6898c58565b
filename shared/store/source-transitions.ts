import { settleReport, type SettleReport } from './settle-report.js';
import type { ChunkSettings } from '../chunking/chunk-settings.js';
import type { StoredChunk } from '../schemas/chunk.js';
import type { SourceProgress } from '../schemas/knowledge-base.js';
import type { SourceCounts } from '../sources/lifecycle.js';
import type { SourceRef } from '../sources/source-ref.js';
import { runScript, type StoreRedis } from './commands.js';
import { outcomeFields, parseSource, type SourceOutcome, type StoredSource } from './kb-records.js';
import type { KeySpace } from './keys.js';
import type { Reply } from './scripts/script.js';
import { rechunkSourceScript, settleKbScript, type RechunkInput } from './scripts/rechunk-scripts.js';
import {
  finishSourceScript,
  finishTextsScript,
  setSourceProgressScript,
  startSourceScript,
  startTextsScript,
  type BatchedFinish,
  type BatchedSource,
  type FinishArgs,
  type TransitionAt,
} from './scripts/worker-transition-scripts.js';
import { dropStaged, emitChunks, joinRanges, needsStaging, parseEmitMarker, stageChunks, stageExtraction } from './chunk-emission.js';
import { feedRange } from '../feed/cursor.js';

/**
 * How long a failed file's bytes stay for a retry, at most: a retry that helps
 * comes soon after the failure, not a week later.
 */
export const KEPT_BYTES_TTL_SECONDS = 86_400;

/** The result of a worker transition: `ok`, or why nothing was written. */
export type TransitionResult = Reply<typeof startSourceScript.replies>['kind'];

/** What a re-chunk did: `ok`, or why nothing was written. */
export type RechunkResult = Reply<typeof rechunkSourceScript.replies>['kind'];

/** What a progress write did (`not_processing`: the source is still pending). */
export type ProgressResult = Reply<typeof setSourceProgressScript.replies>['kind'];

/**
 * What a finish did: the result, and when it wrote, the knowledge base's
 * counts after it. `repeated`: this attempt's finish had been written
 * already and its reply lost (see finishSource.lua); nothing was written again.
 */
export interface FinishReport {
  result: TransitionResult | 'repeated';
  sourceCounts?: SourceCounts;
  /** Set when this finish left no source active: the knowledge base's settle number. */
  settledSeq?: number;
  /** Set when this finish wrote to the change feed: the stream ids before its first event and of its last. */
  changes?: { from: string; to: string };
  /** After a write: the knowledge base's own chunking settings at that moment, undefined when it uses the deployment's. */
  chunking?: ChunkSettings;
}

/** What a claim did, and when it took the source: the record after it and the knowledge base's chunking settings. */
export interface StartReport {
  result: TransitionResult;
  /** The source's record as the claim left it (status `processing`, claimed by this attempt). */
  source?: StoredSource;
  /** The knowledge base's own chunking settings, undefined when it uses the deployment's. */
  chunking?: ChunkSettings;
}

/** The knowledge base's own chunking settings as a script replies them ('' when it has none). */
function chunkingFrom(max: string, overlap: string): ChunkSettings | undefined {
  return max ? { maxTokens: Number(max), overlapTokens: Number(overlap || 0) } : undefined;
}

export type { BatchedSource, TransitionAt };

/** What a batch's claim did: 'gone' for all (the knowledge base is gone or another workspace's), or each source's claim in order. */
export type BatchStartReport = { result: 'gone' } | { result: 'ok'; claims: StartReport[]; chunking?: ChunkSettings };

/** One text of a batch's finish: which, and how it ended. */
export interface BatchedOutcome extends BatchedSource {
  outcome: SourceOutcome;
}

/**
 * How much of a batch's finish goes in one script: sources, and bytes of
 * text, Markdown and chunk entries (the feed entries the script also writes
 * are about as many again), so that one call stays within a few
 * milliseconds of Redis's time.
 */
export const FINISH_TEXTS_MAX_SOURCES = 32;
export const FINISH_TEXTS_MAX_BYTES = 64 * 1024;

/**
 * The worker's moves of a source, each fenced by its run and, given
 * `claim` (the attempt's job lock token), by the attempt that holds it.
 */
export class SourceTransitions {
  constructor(
    private readonly redis: StoreRedis,
    private readonly keys: KeySpace,
  ) {}

  /**
   * Marks a source processing if this run still owns it. With `claim` the
   * source is then held by this attempt, and a finish or progress write given
   * another token is refused as 'stale'. A job taken over after it stalled
   * claims the source anew. Also gives what the job goes on with, read in the
   * same script after the claim: the source's record and the knowledge
   * base's chunking settings. With `workspaceId`, a knowledge base owned by
   * another workspace is 'gone' and nothing is written (a job added by hand
   * that names the wrong workspace).
   */
  async startSourceReport(ref: SourceRef, at: TransitionAt & { workspaceId?: string }): Promise<StartReport> {
    const reply = await runScript(this.redis, this.keys, startSourceScript, { ...ref, ...at });
    if (reply.kind !== 'ok') return { result: reply.kind };
    const source = parseSource(reply.record);
    const chunking = chunkingFrom(reply.chunkMax, reply.chunkOverlap);
    return { result: 'ok', ...(source && { source }), ...(chunking && { chunking }) };
  }

  /**
   * Claims a batch's text sources of one knowledge base for this attempt,
   * each as {@link startSourceReport} claims one, in one script; gives each
   * one's claim, in order, and the knowledge base's chunking settings.
   */
  async startTexts(kbId: string, sources: readonly BatchedSource[], at: TransitionAt & { workspaceId?: string }): Promise<BatchStartReport> {
    const reply = await runScript(this.redis, this.keys, startTextsScript, { kbId, sources, ...at });
    if (reply.kind !== 'ok') return { result: 'gone' };
    const claims: StartReport[] = [];
    const rest = reply.claims;
    for (let i = 0; i + 1 < rest.length; ) {
      const result = rest[i] as TransitionResult;
      const n = Number(rest[i + 1]);
      const values = rest.slice(i + 2, i + 2 + n);
      i += 2 + n;
      if (result !== 'ok') {
        claims.push({ result });
        continue;
      }
      const record: Record<string, string> = {};
      for (let j = 0; j + 1 < values.length; j += 2) record[values[j]!] = values[j + 1]!;
      const source = parseSource(record);
      claims.push({ result, ...(source && { source }) });
    }
    const chunking = chunkingFrom(reply.chunkMax, reply.chunkOverlap);
    return { result: 'ok', claims, ...(chunking && { chunking }) };
  }

  /**
   * Records the outcomes of a batch's texts of one knowledge base, each once
   * as {@link finishSourceReport} records one: in scripts of a bounded share
   * of the batch each ({@link FINISH_TEXTS_MAX_SOURCES}, {@link FINISH_TEXTS_MAX_BYTES}),
   * a text large enough to be staged in a finish of its own. Gives each
   * one's report, in order; a refused one writes nothing and stops no other.
   */
  async finishTexts(kbId: string, items: readonly BatchedOutcome[], at: TransitionAt): Promise<FinishReport[]> {
    const reports: FinishReport[] = new Array(items.length);
    const groups: { index: number; input: BatchedFinish }[][] = [];
    let group: { index: number; input: BatchedFinish }[] = [];
    let bytes = 0;
    const alone: Promise<void>[] = [];
    items.forEach(({ documentId, run, outcome }, index) => {
      const input = { documentId, run, ...finishArgs(outcome) };
      if (outcome.status === 'ready' && (outcome.unchanged || needsStaging(input.text, input.markdown, input.chunks))) {
        alone.push(this.finishSourceReport({ kbId, documentId, run }, outcome, at).then((r) => void (reports[index] = r)));
        return;
      }
      const size = input.text.length + (input.markdown === input.text ? 0 : input.markdown.length) + input.chunks.reduce((n, c) => n + c.length, 0);
      if (group.length > 0 && (group.length >= FINISH_TEXTS_MAX_SOURCES || bytes + size > FINISH_TEXTS_MAX_BYTES)) {
        groups.push(group);
        group = [];
        bytes = 0;
      }
      group.push({ index, input });
      bytes += size;
    });
    if (group.length > 0) groups.push(group);
    const batched = groups.map(async (g) => {
      const reply = await runScript(this.redis, this.keys, finishTextsScript, { kbId, sources: g.map((e) => e.input), ...at });
      const changes = feedRange(reply.feedFrom, reply.feedTo);
      const chunking = chunkingFrom(reply.chunkMax, reply.chunkOverlap);
      g.forEach((e, i) => {
        const result = (reply.results[i] ?? 'gone') as FinishReport['result'];
        const report: FinishReport = { result };
        if (result === 'ok') {
          if (changes) report.changes = changes;
          if (chunking) report.chunking = chunking;
        }
        reports[e.index] = report;
      });
    });
    await settleEvery([...batched, ...alone]);
    return reports;
  }

  /** How far a processing source's extraction has got; written only while this run (and attempt) owns it. */
  async setProgress(ref: SourceRef, progress: SourceProgress, claim = ''): Promise<ProgressResult> {
    return (await runScript(this.redis, this.keys, setSourceProgressScript, { ...ref, progress, claim })).kind;
  }

  /**
   * Replaces a ready source's chunks with `input.chunks`, cut from its
   * Markdown under `input.chunking`; refused ('stale') when the source ran
   * again or its knowledge base's settings changed since. Also gives the
   * range of the change feed it wrote, when it wrote any.
   */
  async rechunkSourceReport(input: Omit<RechunkInput, 'chunks'> & { chunks: StoredChunk[] }): Promise<{ result: RechunkResult; changes?: { from: string; to: string } }> {
    const chunks = input.chunks.map((c) => JSON.stringify(c));
    // Many chunks are staged first, and their feed events (about the Markdown's size) emitted in batches after the script.
    const large = needsStaging('', input.markdown, chunks);
    const once = async () => {
      if (!large) return runScript(this.redis, this.keys, rechunkSourceScript, { ...input, chunks });
      const staged = await stageChunks(this.redis, this.keys, input, input.markdown, chunks);
      const reply = await runScript(this.redis, this.keys, rechunkSourceScript, { ...input, chunks: [], staged });
      if (reply.kind !== 'ok') await dropStaged(this.redis, staged);
      return reply;
    };
    let reply = await once();
    if (reply.kind === 'unstaged') reply = await once();
    if (reply.kind === 'unstaged') throw new Error('the staged chunks expired twice before their re-chunk');
    if (reply.kind !== 'ok') return { result: reply.kind };
    let changes = feedRange(reply.feedFrom, reply.feedTo);
    if (reply.emitSeq > 0) changes = joinRanges(changes, await emitChunks(this.redis, this.keys, input, { seq: reply.emitSeq, phase: 'u', at: '0' }));
    return changes ? { result: reply.kind, changes } : { result: reply.kind };
  }

  /**
   * Ends a re-chunk: one `knowledge_base.changed` for the whole feed range it
   * wrote (`changes`), and with `settle` (it rewrote a source) the knowledge
   * base's settle, unless something is still in flight: that one's end
   * settles it. Undefined when the knowledge base is gone or another workspace's.
   */
  async endRechunk(workspaceId: string, kbId: string, changes: { from: string; to: string } | undefined, settle: boolean): Promise<SettleReport | undefined> {
    const reply = await runScript(this.redis, this.keys, settleKbScript, { workspaceId, kbId, changes, settle });
    return reply.kind === 'ok' ? settleReport(reply.settled, reply.counts) : undefined;
  }

  /**
   * Records the outcome once; a duplicate or stale run (or attempt) writes
   * nothing. Also tells what the change did to the knowledge base: its source
   * counts after it, and its settle number when it left no source active
   * (what completion events are built from).
   */
  async finishSourceReport(ref: SourceRef, outcome: SourceOutcome, at: TransitionAt): Promise<FinishReport> {
    const input = { ...ref, ...at, ...finishArgs(outcome) };
    const large = outcome.status === 'ready' && !input.unchanged && needsStaging(input.text, input.markdown, input.chunks);
    let reply = await this.finishOnce(input, large);
    // Staged values that expired before the script (a worker paused for minutes): staged again, once.
    if (reply.kind === 'unstaged') reply = await this.finishOnce(input, large);
    if (reply.kind === 'unstaged') throw new Error('the staged extraction expired twice before its finish');
    if (reply.kind === 'repeated' && (large || outcome.status === 'failed')) {
      // This attempt's finish was written and its reply lost: its feed events are emitted now, not at the reconciler's pace.
      const marker = parseEmitMarker(await this.redis.hget(this.keys.source(ref.kbId, ref.documentId), 'chunkEmit'));
      if (marker) await emitChunks(this.redis, this.keys, ref, marker);
    }
    if (reply.kind !== 'ok') return { result: reply.kind };
    const report: FinishReport = { result: 'ok', sourceCounts: reply.counts };
    if (reply.settled > 0) report.settledSeq = reply.settled;
    let changes = feedRange(reply.feedFrom, reply.feedTo);
    if (reply.emitSeq > 0) changes = joinRanges(changes, await emitChunks(this.redis, this.keys, ref, { seq: reply.emitSeq, phase: 'u', at: '0' }));
    if (changes) report.changes = changes;
    const chunking = chunkingFrom(reply.chunkMax, reply.chunkOverlap);
    if (chunking) report.chunking = chunking;
    return report;
  }

  /** One finish script: with `large`, its extraction staged first (and dropped when the script did not take it). */
  private async finishOnce(input: SourceRef & TransitionAt & FinishArgs, large: boolean | undefined) {
    if (!large) return runScript(this.redis, this.keys, finishSourceScript, input);
    const staged = await stageExtraction(this.redis, this.keys, input, input);
    const reply = await runScript(this.redis, this.keys, finishSourceScript, {
      ...input,
      staged: {
        nonce: staged.nonce,
        textBytes: staged.text.size,
        markdownBytes: staged.markdown.size,
        chunks: staged.chunks.size,
        feed: staged.feed.size,
        feedBytes: staged.feedBytes,
        extractedBytes: staged.extractedBytes,
      },
    });
    if (reply.kind !== 'ok') await dropStaged(this.redis, staged);
    return reply;
  }
}

/** An outcome flattened for a finish script. */
function finishArgs(outcome: SourceOutcome): Omit<FinishArgs, 'staged'> {
  const ready = outcome.status === 'ready' ? outcome : undefined;
  return {
    status: outcome.status,
    fields: outcomeFields(outcome),
    text: ready?.text ?? '',
    markdown: ready?.markdown ?? ready?.text ?? '',
    chunks: (ready?.chunks ?? []).map((c) => JSON.stringify(c)),
    unchanged: ready?.unchanged === true,
    keepBlobSeconds: outcome.status === 'failed' && outcome.keepBlob ? KEPT_BYTES_TTL_SECONDS : 0,
    error: outcome.status === 'failed' ? outcome.error : undefined,
  };
}

/** Waits for every promise, then throws the first rejection (none is left unhandled). */
async function settleEvery(all: Promise<void>[]): Promise<void> {
  const settled = await Promise.allSettled(all);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed?.status === 'rejected') throw failed.reason;
}
