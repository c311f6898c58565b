import type { RedisClient } from '../redis.js';
import { ConflictError, ForbiddenError, NotFoundError, OTHER_WORKSPACE, PreconditionFailedError, ValidationError } from '../errors.js';
import type { KeySpace } from './keys.js';
import {
  newSourceFields,
  type ReusedExtraction,
  outcomeFields,
  parseMeta,
  parseSource,
  type KbMeta,
  type NewSource,
  type SourceOutcome,
  type StoredSource,
} from './kb-records.js';
import type { Chunk, StoredChunk } from '../schemas/chunk.js';
import type { SourceCounts, SourceProgress, SourceStatus } from '../schemas/knowledge-base.js';
import { withCommands, type StoreRedis } from './commands.js';

/**
 * How long a failed file's bytes stay for a retry, at most: a retry that helps
 * comes soon after the failure, not a week later.
 */
export const KEPT_BYTES_TTL_SECONDS = 86_400;

/** The sources a commit added: all but those it found already there. */
function withoutSkipped(sources: NewSource[], skipped: string[]): NewSource[] {
  if (skipped.length === 0) return sources;
  const left = new Set(skipped);
  return sources.filter((s) => !left.has(s.documentId));
}

/** Source ids read per round trip when a list is filtered by status. */
const LIST_SLICE = 500;

/** The result of a worker transition: `ok`, or why nothing was written. */
export type TransitionResult = 'ok' | 'gone' | 'stale' | 'ready' | 'failed';

/** What a finish did: the result, and when it wrote, the knowledge base's counts after it. */
export interface FinishReport {
  result: TransitionResult;
  sourceCounts?: SourceCounts;
  /** Set when this finish left no source pending or processing: the knowledge base's settle number. */
  settledSeq?: number;
}

export interface KbStoreOptions {
  /** How long staged bytes of a source are kept at most (seconds). */
  blobTtlSeconds: number;
}

/**
 * Knowledge bases, their ordered sources, extracted texts and staged bytes.
 * Every change of a knowledge base is one Lua script on keys sharing its hash
 * tag; the workspace's list is a secondary index written around it so that a
 * crash between the two leaves at most an index entry that reads skip.
 */
export class KbStore {
  private readonly redis: StoreRedis;

  constructor(
    redis: RedisClient,
    readonly keys: KeySpace,
    private readonly opts: KbStoreOptions,
  ) {
    this.redis = withCommands(redis);
  }

  async getMeta(kbId: string): Promise<KbMeta | null> {
    return parseMeta(await this.redis.hgetall(this.keys.kb(kbId)));
  }

  /** Reads a knowledge base and all its sources in order, or null. */
  async get(kbId: string): Promise<{ meta: KbMeta; sources: StoredSource[] } | null> {
    // A pipeline, not MULTI: a read must keep working while Redis refuses writes (out of memory).
    const [metaRes, idsRes] = (await this.redis
      .pipeline()
      .hgetall(this.keys.kb(kbId))
      .lrange(this.keys.docs(kbId), 0, -1)
      .exec()) as [[Error | null, Record<string, string>], [Error | null, string[]]];
    if (metaRes[0]) throw metaRes[0];
    if (idsRes[0]) throw idsRes[0];
    const meta = parseMeta(metaRes[1]);
    if (!meta) return null;
    return { meta, sources: await this.readSources(kbId, idsRes[1]) };
  }

  /** A page of a workspace's knowledge bases, newest first. */
  async list(workspaceId: string, page: number, size: number): Promise<{ items: KbMeta[]; total: number }> {
    const index = this.keys.workspaceKbs(workspaceId);
    const start = page * size;
    const [total, ids] = await Promise.all([
      this.redis.zcard(index),
      start > Number.MAX_SAFE_INTEGER - size ? Promise.resolve([]) : this.redis.zrevrange(index, start, start + size - 1),
    ]);
    // One command per knowledge base, not one pipeline: each has its own hash slot, and on
    // a cluster a pipeline must stay in one. ioredis still sends them without waiting.
    const rows = await Promise.all(ids.map((id) => this.redis.hgetall(this.keys.kb(id))));
    const items: KbMeta[] = [];
    const dangling: string[] = [];
    rows.forEach((h, i) => {
      const meta = parseMeta(h);
      if (meta) items.push(meta);
      else dangling.push(ids[i]!);
    });
    if (dangling.length > 0) await this.redis.zrem(index, ...dangling);
    return { items, total: total - dangling.length };
  }

  /**
   * Creates a knowledge base with its first sources (all or nothing). Returns
   * the sources actually added: a repeat of an earlier one is left out.
   */
  async create(workspaceId: string, kbId: string, name: string, sources: NewSource[], now: string, autoRefreshHours?: number): Promise<NewSource[]> {
    await this.redis.zadd(this.keys.workspaceKbs(workspaceId), Date.parse(now), kbId);
    const payload: Record<string, string> = { create: '1', kbId, workspaceId, name };
    if (autoRefreshHours !== undefined) payload.autoRefreshHours = String(autoRefreshHours);
    const { res, skipped } = await this.commit(payload, kbId, sources, now);
    if (res !== 'ok') {
      await this.redis.zrem(this.keys.workspaceKbs(workspaceId), kbId);
      throw new ConflictError(`could not create the knowledge base (${res})`);
    }
    return withoutSkipped(sources, skipped);
  }

  /**
   * Appends sources and optionally renames, atomically; checks ownership, and
   * with `ifRev` changes nothing unless the knowledge base is at that revision.
   */
  async addSources(
    workspaceId: string,
    kbId: string,
    name: string | undefined,
    sources: NewSource[],
    now: string,
    ifRev?: number,
    autoRefreshHours?: number,
  ): Promise<NewSource[]> {
    const payload: Record<string, string> = { create: '0', kbId, workspaceId };
    if (name !== undefined) payload.name = name;
    if (autoRefreshHours !== undefined) payload.autoRefreshHours = String(autoRefreshHours);
    if (ifRev !== undefined) payload.ifRev = String(ifRev);
    const { res, skipped } = await this.commit(payload, kbId, sources, now);
    this.throwFor(res);
    if (res === 'precondition_failed') throw new PreconditionFailedError();
    if (res === 'stage_missing') throw new ConflictError('an upload expired before it was committed; send it again');
    return withoutSkipped(sources, skipped);
  }

  private async commit(base: Record<string, string>, kbId: string, sources: NewSource[], now: string): Promise<{ res: string; skipped: string[] }> {
    if (sources.length > 0) await this.markActive(kbId, now);
    const k = this.keys;
    const docs = sources.map((s) => ({ ...(s.stageKey ? { stageKey: s.stageKey } : {}), fields: newSourceFields(s, now), ...(s.reuse ? { reuse: s.reuse } : {}) }));
    const payload = {
      ...base,
      now,
      nowMs: Date.parse(now),
      ttl: this.opts.blobTtlSeconds,
      docPrefix: k.docPrefix(kbId),
      blobPrefix: k.blobPrefix(kbId),
      textPrefix: k.textPrefix(kbId),
      markdownPrefix: k.markdownPrefix(kbId),
      chunksPrefix: k.chunksPrefix(kbId),
      docs,
    };
    const [res, , ...skipped] = await this.redis.kbCommitSources(k.kb(kbId), k.docs(kbId), k.active(kbId), k.fingerprints(kbId), JSON.stringify(payload));
    return { res: String(res), skipped: skipped.map(String) };
  }

  /**
   * Puts the knowledge base in the index of those with active sources. It is
   * written before the script that adds the sources (another hash slot), so a
   * crash in between leaves an entry the reconciler drops, never a source
   * the reconciler cannot find.
   */
  private async markActive(kbId: string, now: string): Promise<void> {
    await this.redis.zadd(this.keys.activeKbs(), Date.parse(now), kbId);
  }

  /** Deletes a knowledge base, its sources, texts and staged bytes. */
  async delete(workspaceId: string, kbId: string): Promise<void> {
    const k = this.keys;
    const [res] = await this.redis.kbDeleteKb(
      k.kb(kbId),
      k.docs(kbId),
      k.active(kbId),
      k.fingerprints(kbId),
      workspaceId,
      k.docPrefix(kbId),
      k.textPrefix(kbId),
      k.blobPrefix(kbId),
      k.markdownPrefix(kbId),
      k.chunksPrefix(kbId),
    );
    this.throwFor(res);
    await this.redis.zrem(this.keys.workspaceKbs(workspaceId), kbId);
  }

  /**
   * A page of a knowledge base's sources in order, optionally only those of
   * one status. Without a status it reads just the page; with one it walks the
   * source list in slices, reading only each source's status until the page
   * is full, and counts the rest.
   */
  async listSources(kbId: string, page: number, size: number, status?: SourceStatus): Promise<{ items: StoredSource[]; total: number }> {
    const list = this.keys.docs(kbId);
    const start = page * size;
    if (!status) {
      const [total, ids] = await Promise.all([
        this.redis.llen(list),
        start > Number.MAX_SAFE_INTEGER - size ? Promise.resolve([]) : this.redis.lrange(list, start, start + size - 1),
      ]);
      return { items: await this.readSources(kbId, ids), total };
    }
    const wanted: string[] = [];
    let total = 0;
    for (let at = 0; ; at += LIST_SLICE) {
      const ids = await this.redis.lrange(list, at, at + LIST_SLICE - 1);
      if (ids.length === 0) break;
      const pipe = this.redis.pipeline();
      for (const id of ids) pipe.hget(this.keys.doc(kbId, id), 'status');
      const statuses = (await pipe.exec()) ?? [];
      ids.forEach((id, i) => {
        if (statuses[i]?.[1] !== status) return;
        if (total >= start && wanted.length < size) wanted.push(id);
        total += 1;
      });
      if (ids.length < LIST_SLICE) break;
    }
    return { items: await this.readSources(kbId, wanted), total };
  }

  private async readSources(kbId: string, ids: string[]): Promise<StoredSource[]> {
    if (ids.length === 0) return [];
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hgetall(this.keys.doc(kbId, id));
    const rows = (await pipe.exec()) ?? [];
    return rows.map(([, h]) => parseSource(h as Record<string, string>)).filter((s): s is StoredSource => s !== null);
  }

  async getSource(kbId: string, documentId: string): Promise<StoredSource | null> {
    return parseSource(await this.redis.hgetall(this.keys.doc(kbId, documentId)));
  }

  async getText(kbId: string, documentId: string): Promise<string | null> {
    return this.redis.get(this.keys.text(kbId, documentId));
  }

  async deleteSource(workspaceId: string, kbId: string, documentId: string, now: string): Promise<void> {
    const k = this.keys;
    const [res] = await this.redis.kbDeleteDoc(
      k.kb(kbId),
      k.docs(kbId),
      k.active(kbId),
      k.doc(kbId, documentId),
      k.text(kbId, documentId),
      k.blob(kbId, documentId),
      k.markdown(kbId, documentId),
      k.chunks(kbId, documentId),
      k.fingerprints(kbId),
      workspaceId,
      documentId,
      now,
    );
    this.throwFor(res);
  }

  /** Puts a failed source back to pending; returns its new run number. */
  async retrySource(workspaceId: string, kbId: string, documentId: string, now: string): Promise<number> {
    const k = this.keys;
    await this.markActive(kbId, now);
    const [res, run] = await this.redis.kbRetryDoc(k.kb(kbId), k.doc(kbId, documentId), k.active(kbId), k.blob(kbId, documentId), workspaceId, now, Date.parse(now), documentId);
    this.throwFor(res);
    if (res === 'not_failed') throw new ConflictError('only a failed source can be retried');
    if (res === 'no_bytes') throw new ConflictError('the uploaded file is no longer kept; upload it again');
    return Number(run);
  }

  /**
   * Mends a source the active index lists although it has ended (a write
   * applied in part; see repairDoc.lua): recounts the knowledge base, and puts
   * a ready source whose extraction is incomplete back to pending under a new
   * run, or fails it when its uploaded bytes are gone.
   */
  async repairSource(kbId: string, documentId: string, now: string): Promise<{ result: 'active' | 'gone' | 'mended' | 'failed' } | { result: 'rerun'; run: number }> {
    const k = this.keys;
    const error = { code: 'internal', message: 'The extracted text was not saved completely and the uploaded file is no longer kept; upload it again' };
    const [res, run] = await this.redis.kbRepairDoc(
      k.kb(kbId),
      k.doc(kbId, documentId),
      k.active(kbId),
      k.docs(kbId),
      k.text(kbId, documentId),
      k.markdown(kbId, documentId),
      k.chunks(kbId, documentId),
      k.blob(kbId, documentId),
      documentId,
      now,
      Date.parse(now),
      k.docPrefix(kbId),
      JSON.stringify(error),
    );
    if (res === 'rerun') return { result: 'rerun', run: Number(run) };
    return { result: res as 'active' | 'gone' | 'mended' | 'failed' };
  }

  /** Remembers that a ready file source holds the extraction of these bytes, for the workspace to reuse. */
  async recordExtractedFile(workspaceId: string, sha256: string, kbId: string, documentId: string): Promise<void> {
    await this.redis.hset(this.keys.extractedFiles(workspaceId), sha256, `${kbId}/${documentId}`);
  }

  /**
   * For each file whose bytes were already extracted in the workspace (and
   * whose source is still ready with the same bytes), that extraction, to be
   * taken over by the new source. Stale entries are dropped.
   */
  async findReusable(workspaceId: string, sources: NewSource[]): Promise<Map<string, ReusedExtraction>> {
    const found = new Map<string, ReusedExtraction>();
    const files = sources.filter((s) => s.type === 'file' && s.sha256);
    if (files.length === 0) return found;
    const index = this.keys.extractedFiles(workspaceId);
    const refs = await this.redis.hmget(index, ...files.map((s) => s.sha256!));
    for (const [i, ref] of refs.entries()) {
      const file = files[i]!;
      if (!ref) continue;
      const [kbId = '', documentId = ''] = ref.split('/');
      const reused = await this.readExtraction(kbId, documentId, file.sha256!);
      if (!reused) {
        await this.redis.hdel(index, file.sha256!);
        continue;
      }
      // A title that was only the old file's name becomes the new one's.
      if (reused.fields.title === reused.fields.filename || !reused.fields.title) reused.fields.title = file.filename ?? file.content;
      delete reused.fields.filename;
      found.set(file.documentId, reused);
    }
    return found;
  }

  private async readExtraction(kbId: string, documentId: string, sha256: string): Promise<ReusedExtraction | null> {
    const k = this.keys;
    const [h, text, markdown] = await Promise.all([
      this.redis.hgetall(k.doc(kbId, documentId)),
      this.redis.get(k.text(kbId, documentId)),
      this.redis.get(k.markdown(kbId, documentId)),
    ]);
    if (h.status !== 'ready' || h.sha256 !== sha256 || text === null) return null;
    const chunks = await this.redis.lrange(k.chunks(kbId, documentId), 0, -1);
    const keep = ['mimeType', 'sizeBytes', 'charCount', 'pageCount', 'truncated', 'warnings', 'chunkCount', 'title', 'filename'];
    const fields = Object.fromEntries(keep.flatMap((f) => (h[f] !== undefined ? [[f, h[f]!]] : [])));
    return { fields, text, markdown: markdown ?? text, chunks };
  }

  /** Puts a ready or failed URL source back to pending to fetch it again; returns its new run number. */
  async refreshSource(workspaceId: string, kbId: string, documentId: string, now: string): Promise<number> {
    const k = this.keys;
    await this.markActive(kbId, now);
    const [res, detail] = await this.redis.kbRefreshDoc(k.kb(kbId), k.doc(kbId, documentId), k.active(kbId), workspaceId, now, Date.parse(now), documentId);
    this.throwFor(res);
    if (res === 'not_url') throw new ValidationError({ documentId: 'only a URL source can be refreshed' });
    if (res === 'busy') throw new ConflictError(`the source is ${String(detail)}; refresh it once it is ready or failed`);
    return Number(detail);
  }

  /**
   * Worker: how far a processing source's extraction has got; written only
   * while this run owns it (and, given `claim`, while that attempt holds it).
   */
  async setProgress(kbId: string, documentId: string, run: number, progress: SourceProgress, claim = ''): Promise<TransitionResult | 'not_processing'> {
    const [res] = await this.redis.kbSetProgress(this.keys.kb(kbId), this.keys.doc(kbId, documentId), String(run), JSON.stringify(progress), claim);
    return res as TransitionResult | 'not_processing';
  }

  /**
   * Worker: marks a source processing if this run still owns it. `claim` is
   * the attempt's job lock token: the source is then held by this attempt,
   * and a finish or progress write given another token is refused as
   * 'stale'. A job taken over after it stalled claims the source anew.
   */
  async startSource(kbId: string, documentId: string, run: number, now: string, claim = ''): Promise<TransitionResult> {
    const k = this.keys;
    const [res] = await this.redis.kbStartDoc(k.kb(kbId), k.doc(kbId, documentId), k.active(kbId), String(run), now, Date.parse(now), documentId, claim);
    return res as TransitionResult;
  }

  /** Worker: records the outcome once; a duplicate or stale run (or attempt, given `claim`) writes nothing. */
  async finishSource(kbId: string, documentId: string, run: number, outcome: SourceOutcome, now: string, claim = ''): Promise<TransitionResult> {
    return (await this.finishSourceReport(kbId, documentId, run, outcome, now, claim)).result;
  }

  /**
   * {@link finishSource}, also telling what the change did to the knowledge
   * base: its source counts after it, and its settle number when it left no
   * source pending or processing (what completion events are built from).
   */
  async finishSourceReport(kbId: string, documentId: string, run: number, outcome: SourceOutcome, now: string, claim = ''): Promise<FinishReport> {
    const k = this.keys;
    const keepBlobSeconds = outcome.status === 'failed' && outcome.keepBlob ? String(KEPT_BYTES_TTL_SECONDS) : '0';
    const ready = outcome.status === 'ready' ? outcome : undefined;
    const chunks = JSON.stringify((ready?.chunks ?? []).map((c) => JSON.stringify(c)));
    const [res, ...rest] = await this.redis.kbFinishDoc(
      k.kb(kbId),
      k.doc(kbId, documentId),
      k.active(kbId),
      k.text(kbId, documentId),
      k.blob(kbId, documentId),
      k.markdown(kbId, documentId),
      k.chunks(kbId, documentId),
      String(run),
      now,
      outcome.status,
      JSON.stringify(outcomeFields(outcome)),
      ready?.text ?? '',
      keepBlobSeconds,
      documentId,
      ready?.markdown ?? ready?.text ?? '',
      chunks,
      ready?.unchanged ? '1' : '0',
      claim,
    );
    if (res !== 'ok') return { result: res as TransitionResult };
    const [pending, processing, readyCount, failed, settled] = rest.map(Number) as [number, number, number, number, number];
    const report: FinishReport = { result: 'ok', sourceCounts: { pending, processing, ready: readyCount, failed } };
    if (settled > 0) report.settledSeq = settled;
    return report;
  }

  /** The settle number a source's last finish gave its knowledge base, if that finish settled it. */
  async settledBy(kbId: string, documentId: string): Promise<number | undefined> {
    const seq = await this.redis.hget(this.keys.doc(kbId, documentId), 'settledSeq');
    return seq ? Number(seq) : undefined;
  }

  /** The extraction as Markdown (sources written before Markdown was kept have only their text). */
  async getMarkdown(kbId: string, documentId: string): Promise<string | null> {
    const [md, text] = await this.redis.mget(this.keys.markdown(kbId, documentId), this.keys.text(kbId, documentId));
    return md ?? text ?? null;
  }

  /** A page of a source's chunks with their text, read from the Markdown by byte range. */
  async chunkPage(kbId: string, documentId: string, page: number, size: number): Promise<{ items: Chunk[]; total: number }> {
    const key = this.keys.chunks(kbId, documentId);
    const start = page * size;
    const [total, rows] = await Promise.all([
      this.redis.llen(key),
      start > Number.MAX_SAFE_INTEGER - size ? Promise.resolve([]) : this.redis.lrange(key, start, start + size - 1),
    ]);
    const entries = rows.map((r) => JSON.parse(r) as StoredChunk);
    const pipe = this.redis.pipeline();
    const mdKey = this.keys.markdown(kbId, documentId);
    for (const e of entries) pipe.getrangeBuffer(mdKey, e.byteStart, e.byteEnd - 1);
    const texts = entries.length > 0 ? ((await pipe.exec()) ?? []) : [];
    const items = entries.map(({ byteStart: _s, byteEnd: _e, ...c }, i) => ({ ...c, text: (texts[i]?.[1] as Buffer | undefined)?.toString('utf8') ?? '' }));
    return { items, total };
  }

  async readBlob(kbId: string, documentId: string): Promise<Buffer | null> {
    return this.redis.getBuffer(this.keys.blob(kbId, documentId));
  }

  /** Active sources of one knowledge base with the time (ms) each entered its state. */
  async activeSources(kbId: string): Promise<{ documentId: string; sinceMs: number }[]> {
    const flat = await this.redis.zrange(this.keys.active(kbId), 0, -1, 'WITHSCORES');
    const out: { documentId: string; sinceMs: number }[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ documentId: flat[i]!, sinceMs: Number(flat[i + 1]) });
    return out;
  }

  /** A page of the index of knowledge bases that may have active sources, with when each was marked. */
  async activeKbs(cursor: number, count: number): Promise<{ kbId: string; markedMs: number }[]> {
    const flat = await this.redis.zrange(this.keys.activeKbs(), cursor, cursor + count - 1, 'WITHSCORES');
    const out: { kbId: string; markedMs: number }[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ kbId: flat[i]!, markedMs: Number(flat[i + 1]) });
    return out;
  }

  /**
   * Adds a knowledge base's pending and processing sources to the active
   * index (for data written before the index existed). True when it has any.
   */
  async indexActive(kbId: string): Promise<boolean> {
    const found = await this.get(kbId);
    const active = found?.sources.filter((s) => s.status === 'pending' || s.status === 'processing') ?? [];
    if (active.length === 0) return false;
    const pipe = this.redis.pipeline();
    for (const s of active) pipe.zadd(this.keys.active(kbId), 'NX', Date.parse(s.updatedAt), s.documentId);
    await pipe.exec();
    // The index has its own hash slot, so it is not part of the pipeline above.
    await this.redis.zadd(this.keys.activeKbs(), Date.now(), kbId);
    return true;
  }

  /** Drops a knowledge base from the active index unless it was marked again after `markedMs`. */
  async unmarkActive(kbId: string, markedMs: number): Promise<void> {
    await this.redis.kbUnmarkActive(this.keys.activeKbs(), kbId, String(markedMs));
  }

  private throwFor(res: unknown): void {
    if (res === 'missing' || res === 'missing_doc') throw new NotFoundError();
    if (res === 'forbidden') throw new ForbiddenError(OTHER_WORKSPACE);
  }
}
