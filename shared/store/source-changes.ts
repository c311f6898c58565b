import { ConflictError, TooManyRequestsError, ValidationError } from '../errors.js';
import { assertRefreshAllowed } from '../sources/refresh-cooldown.js';
import { feedEntries, type FeedEntry } from '../feed/feed-entries.js';
import type { SourceTarget } from '../sources/source-ref.js';
import type { ActiveIndex } from './active-index.js';
import { runScript, type StoreRedis } from './commands.js';
import type { KeySpace } from './keys.js';
import type { Metadata } from '../schemas/metadata.js';
import { feedRange, type FeedRange } from '../feed/cursor.js';
import { deleteSourceScript } from './scripts/delete-scripts.js';
import { emitMetadataScript, setSourceMetadataScript } from './scripts/metadata-scripts.js';
import { refreshSourceScript, replaceSourceScript, retrySourceScript, type ReplaceFields } from './scripts/rerun-scripts.js';
import { resultError } from './scripts/result-error.js';
import { parseSource, type StoredSource } from './kb-records.js';
import { settleReport, type SettleReport } from './settle-report.js';
import { dropChunks, EMIT_BATCH_BYTES, emitChunks, joinRanges, parseEmitMarker } from './chunk-emission.js';
import { readList, readString } from './staging.js';

/** Reads of a source's chunks before a metadata emission leaves runs that keep rewriting them to the reconciler. */
const METADATA_ATTEMPTS = 5;
/** Chunks one script of a metadata change's emission shows again: each script stays short whatever the source's size. */
export const METADATA_BATCH = 200;

/** The end of the batch from `at`: METADATA_BATCH entries, or fewer past EMIT_BATCH_BYTES of them (one at least). */
function batchEnd(entries: readonly FeedEntry[], at: number): number {
  let bytes = 0;
  let end = at;
  while (end < entries.length && end - at < METADATA_BATCH) {
    bytes += entries[end]!.j.length;
    if (end > at && bytes > EMIT_BATCH_BYTES) break;
    end += 1;
  }
  return end;
}

/** A source put back to pending: its new run and its record after the move. */
export interface Rerun {
  run: number;
  source: StoredSource;
}

/** A source's record from a script's HGETALL (field, value, ...). */
function recordOf(flat: string[]): StoredSource {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
  const source = parseSource(fields);
  if (!source) throw new Error('a rerun script answered without the source record');
  return source;
}

/** What a refusal about `target` names. */
const sourceContext = (target: SourceTarget) => ({ kbId: target.kbId, documentId: target.documentId });

/** A user's changes of one source: run it again (retry, refresh), set its metadata or delete it. */
export class SourceChanges {
  constructor(
    private readonly redis: StoreRedis,
    private readonly keys: KeySpace,
    private readonly active: ActiveIndex,
  ) {}

  /** Puts a failed source back to pending; returns its new run number and its record after the move. */
  async retrySource(target: SourceTarget, now: string): Promise<Rerun> {
    const reply = await this.active.markedWrite(target.kbId, now, () => runScript(this.redis, this.keys, retrySourceScript, { ...target, now }));
    if (reply.kind !== 'ok') throw resultError(reply.kind, sourceContext(target));
    return { run: reply.run, source: recordOf(reply.record) };
  }

  /**
   * Puts a ready or failed URL source back to pending to fetch it again;
   * returns its new run number and its record after the move. With
   * `cooldownMs` (a refresh by hand), a ready source fetched less than that
   * ago is left as it is: 429 with the seconds left.
   */
  async refreshSource(target: SourceTarget, now: string, cooldownMs = 0): Promise<Rerun> {
    const fetchedAfter = cooldownMs > 0 ? new Date(Date.parse(now) - cooldownMs).toISOString() : undefined;
    const reply = await this.active.markedWrite(target.kbId, now, () => runScript(this.redis, this.keys, refreshSourceScript, { ...target, now, fetchedAfter }));
    if (reply.kind === 'cooling') {
      assertRefreshAllowed(recordOf(reply.record), cooldownMs, new Date(now));
      // The script compared the texts of the times; the same in ms leaves no second to wait: at least one.
      throw new TooManyRequestsError(1, `The source was fetched less than ${Math.round(cooldownMs / 1000)} s ago; refresh it again after 1 s`);
    }
    if (reply.kind === 'busy') throw resultError(reply.kind, { status: reply.status });
    if (reply.kind !== 'ok') throw resultError(reply.kind, sourceContext(target));
    return { run: reply.run, source: recordOf(reply.record) };
  }

  /**
   * Replaces a file or text source with a new version, keeping its id: the
   * new input (`stageKey` for an upload) under a new run, back to pending.
   * Its text and chunks stay readable until the run ends. Returns the run and
   * the knowledge base's new revision. 400 for a URL or site page source, 409
   * while it runs or when another source has the same content, 412 past `ifRev`.
   */
  async replaceSource(
    target: SourceTarget,
    input: { fields: ReplaceFields; stageKey?: string | undefined; ttl: number; ifRev?: number | undefined },
    now: string,
  ): Promise<{ run: number; rev: number }> {
    await this.active.markActive(target.kbId, now);
    const reply = await runScript(this.redis, this.keys, replaceSourceScript, { ...target, ...input, now });
    switch (reply.kind) {
      case 'ok':
        return { run: reply.run, rev: reply.rev };
      case 'not_replaceable':
        throw new ValidationError({
          documentId: `a ${reply.type} source is not replaceable: only file and text sources are; refresh a URL or site page source instead (POST .../refresh)`,
        });
      case 'busy':
        throw new ConflictError(`the source is ${reply.status}; replace it once it is ready or failed`);
      case 'duplicate':
        throw new ConflictError(`source ${reply.documentId} of this knowledge base already has this content`);
      case 'precondition_failed':
        throw resultError(reply.kind, { rev: reply.rev });
      default:
        throw resultError(reply.kind, sourceContext(target));
    }
  }

  /**
   * Replaces a source's metadata (already validated); an empty object removes
   * it. One short script writes the change and marks the emission; then the
   * source's chunks in the feed appear again as chunk.upserted in batches of
   * METADATA_BATCH (see emitMetadata). Returns the change feed range the
   * batches wrote, undefined when the metadata was the same or the source
   * has no chunks. `maxBatches` stops early, as a crash would (tests).
   */
  async setMetadata(target: SourceTarget, metadata: Metadata, now: string, maxBatches = Infinity): Promise<FeedRange | undefined> {
    // The reconciler walks this index: it finishes an emission a crash interrupted.
    await this.active.markActive(target.kbId, now);
    const reply = await runScript(this.redis, this.keys, setSourceMetadataScript, { ...target, metadata, now });
    if (reply.kind !== 'ok') throw resultError(reply.kind, sourceContext(target));
    if (reply.seq === 0) return undefined;
    return this.emitMetadata(target, reply.seq, 0, maxBatches);
  }

  /**
   * Emits the chunk.upserted events of metadata change `seq` from chunk
   * `start` on, one bounded script a batch, each advancing the record's
   * marker. Stops when a later change supersedes it or the source is gone;
   * when a run rewrites the chunks meanwhile, reads them again and starts
   * over (a chunk may then appear twice), at most METADATA_ATTEMPTS times,
   * after which the reconciler goes on. Returns the feed range written.
   */
  async emitMetadata(target: { kbId: string; documentId: string }, seq: number, start: number, maxBatches = Infinity): Promise<FeedRange | undefined> {
    let entries = await this.feedChunks(target);
    let from = '';
    let to = '';
    let at = start;
    for (let batches = 0, reads = 1; batches < maxBatches; batches++) {
      const reply = await runScript(this.redis, this.keys, emitMetadataScript, {
        ...target,
        seq,
        start: at,
        total: entries.length,
        entries: entries.slice(at, batchEnd(entries, at)),
      });
      if (reply.kind === 'moved') {
        if (reads++ >= METADATA_ATTEMPTS) break;
        entries = await this.feedChunks(target);
        at = 0;
        continue;
      }
      if (reply.kind !== 'ok') break;
      if (reply.feedTo !== '') {
        if (from === '') from = reply.feedFrom;
        to = reply.feedTo;
      }
      at = reply.next;
      if (at >= entries.length) break;
    }
    return feedRange(from, to);
  }

  /** Sources of a knowledge base with a metadata emission under way, with when it last advanced (ms); at most `count`. */
  async pendingMetadata(kbId: string, count: number): Promise<{ documentId: string; sinceMs: number }[]> {
    const flat = await this.redis.zrange(this.keys.metadataEmits(kbId), 0, count - 1, 'WITHSCORES');
    const out: { documentId: string; sinceMs: number }[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ documentId: flat[i]!, sinceMs: Number(flat[i + 1]) });
    return out;
  }

  /**
   * Finishes a source's interrupted metadata emission from its marker, or
   * the chunk.deleted events of a deleted source of many chunks. Returns the
   * feed range written, undefined when it had none to finish.
   */
  async resumeMetadata(kbId: string, documentId: string): Promise<FeedRange | undefined> {
    // A deleted source's chunk.deleted events a crash left unwritten.
    if ((await this.redis.exists(this.keys.sourceKeys(kbId, documentId).dropIds)) === 1) return dropChunks(this.redis, this.keys, kbId, documentId);
    const [marker, chunkMarker] = await this.redis.hmget(this.keys.source(kbId, documentId), 'metaEmit', 'chunkEmit');
    // A large write's chunk events first: a metadata emission compares against the chunks they leave.
    // Without a marker, emitChunks only drops what a superseded emission left (checked in its script) and the entry.
    const written = await emitChunks(this.redis, this.keys, { kbId, documentId }, parseEmitMarker(chunkMarker) ?? { seq: 0, phase: 'u', at: '0' });
    if (!marker) return written;
    const [seq, next] = marker.split(':').map(Number) as [number, number];
    return joinRanges(written, await this.emitMetadata({ kbId, documentId }, seq, next));
  }

  /** The source's chunks as the feed shows them, when the feed holds any. */
  private async feedChunks(target: { kbId: string; documentId: string }): Promise<FeedEntry[]> {
    const keys = this.keys.sourceKeys(target.kbId, target.documentId);
    if ((await this.redis.hlen(keys.chunkIds)) === 0) return [];
    // Read in slices, each command short; emitMetadata finds out ('moved') when a run rewrote them meanwhile.
    const [chunks, markdown] = await Promise.all([readList(this.redis, keys.chunks), readString(this.redis, keys.markdown)]);
    return feedEntries(target.kbId, target.documentId, markdown ?? (await readString(this.redis, keys.text)) ?? '', chunks);
  }

  /**
   * Deletes a source with every key it owns; with `ifRev`, only while its
   * knowledge base is at that revision. Returns the change feed range the
   * delete wrote (its chunks' chunk.deleted; undefined when it had none), and
   * the knowledge base's settle, which has a settle number when this was its
   * last source in flight.
   */
  async deleteSource(target: SourceTarget, now: string, ifRev?: number): Promise<{ changes: FeedRange | undefined; settle: SettleReport }> {
    // The reconciler walks this index: it writes the chunk.deleted events a crash left unwritten.
    const reply = await this.active.markedWrite(target.kbId, now, () => runScript(this.redis, this.keys, deleteSourceScript, { ...target, now, ifRev }));
    if (reply.kind === 'precondition_failed') throw resultError(reply.kind, { rev: reply.rev });
    if (reply.kind !== 'ok') throw resultError(reply.kind, sourceContext(target));
    let changes = feedRange(reply.feedFrom, reply.feedTo);
    // The source is deleted: events that a failure here leaves unwritten are the reconciler's to write.
    if (reply.dropping) changes = joinRanges(changes, await dropChunks(this.redis, this.keys, target.kbId, target.documentId).catch(() => undefined));
    return { changes, settle: settleReport(reply.settled, reply.counts) };
  }
}
