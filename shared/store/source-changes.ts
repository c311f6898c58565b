import { ConflictError } from '../errors.js';
import { feedEntries, type FeedEntry } from '../feed/feed-entries.js';
import type { SourceTarget } from '../sources/source-ref.js';
import type { ActiveIndex } from './active-index.js';
import { runScript, type StoreRedis } from './commands.js';
import type { KeySpace } from './keys.js';
import type { Metadata } from '../schemas/metadata.js';
import { feedRange, type FeedRange } from '../feed/cursor.js';
import { deleteSourceScript } from './scripts/delete-scripts.js';
import { setSourceMetadataScript } from './scripts/metadata-scripts.js';
import { refreshSourceScript, retrySourceScript } from './scripts/rerun-scripts.js';
import { resultError } from './scripts/result-error.js';
import { settleReport, type SettleReport } from './settle-report.js';

/** Reads of a source's chunks before a metadata change gives up on runs that keep rewriting them. */
const METADATA_ATTEMPTS = 5;

/** What a refusal about `target` names. */
const sourceContext = (target: SourceTarget) => ({ kbId: target.kbId, documentId: target.documentId });

/** A user's changes of one source: run it again (retry, refresh), set its metadata or delete it. */
export class SourceChanges {
  constructor(
    private readonly redis: StoreRedis,
    private readonly keys: KeySpace,
    private readonly active: ActiveIndex,
  ) {}

  /** Puts a failed source back to pending; returns its new run number. */
  async retrySource(target: SourceTarget, now: string): Promise<number> {
    await this.active.markActive(target.kbId, now);
    const reply = await runScript(this.redis, this.keys, retrySourceScript, { ...target, now });
    if (reply.kind !== 'ok') throw resultError(reply.kind, sourceContext(target));
    return reply.run;
  }

  /** Puts a ready or failed URL source back to pending to fetch it again; returns its new run number. */
  async refreshSource(target: SourceTarget, now: string): Promise<number> {
    await this.active.markActive(target.kbId, now);
    const reply = await runScript(this.redis, this.keys, refreshSourceScript, { ...target, now });
    if (reply.kind === 'busy') throw resultError(reply.kind, { status: reply.status });
    if (reply.kind !== 'ok') throw resultError(reply.kind, sourceContext(target));
    return reply.run;
  }

  /**
   * Replaces a source's metadata (already validated); an empty object removes
   * it. The chunks the feed holds of the source are read first, so that the
   * script can show them again with the new metadata; a run that rewrites
   * them meanwhile makes it read again. Returns the change feed range it
   * wrote, undefined when the metadata was the same or the source has no chunks.
   */
  async setMetadata(target: SourceTarget, metadata: Metadata, now: string): Promise<FeedRange | undefined> {
    for (let attempt = 0; attempt < METADATA_ATTEMPTS; attempt++) {
      const reply = await runScript(this.redis, this.keys, setSourceMetadataScript, { ...target, metadata, now, entries: await this.feedChunks(target) });
      if (reply.kind === 'ok') return feedRange(reply.feedFrom, reply.feedTo);
      if (reply.kind !== 'moved') throw resultError(reply.kind, sourceContext(target));
    }
    throw new ConflictError('The document is being rewritten; try again');
  }

  /** The source's chunks as the feed shows them, when the feed holds any. */
  private async feedChunks(target: SourceTarget): Promise<FeedEntry[]> {
    const keys = this.keys.sourceKeys(target.kbId, target.documentId);
    const [held, chunks, markdown, text] = (await this.redis
      .multi()
      .hlen(keys.chunkIds)
      .lrange(keys.chunks, 0, -1)
      .get(keys.markdown)
      .get(keys.text)
      .exec())!.map(([err, v]) => {
      if (err) throw err;
      return v;
    }) as [number, string[], string | null, string | null];
    return held > 0 ? feedEntries(target.kbId, target.documentId, markdown ?? text ?? '', chunks) : [];
  }

  /**
   * Deletes a source with every key it owns; with `ifRev`, only while its
   * knowledge base is at that revision. Returns the change feed range the
   * delete wrote (its chunks' chunk.deleted; undefined when it had none), and
   * the knowledge base's settle, which has a settle number when this was its
   * last source in flight.
   */
  async deleteSource(target: SourceTarget, now: string, ifRev?: number): Promise<{ changes: FeedRange | undefined; settle: SettleReport }> {
    const reply = await runScript(this.redis, this.keys, deleteSourceScript, { ...target, now, ifRev });
    if (reply.kind === 'precondition_failed') throw resultError(reply.kind, { rev: reply.rev });
    if (reply.kind !== 'ok') throw resultError(reply.kind, sourceContext(target));
    return { changes: feedRange(reply.feedFrom, reply.feedTo), settle: settleReport(reply.settled, reply.counts) };
  }
}
