import type { ChunkSettings } from '../chunking/chunk-settings.js';
import { ConflictError } from '../errors.js';
import { knowledgeBasesQuotaError, sourcesQuotaError } from '../quotas.js';
import type { ActiveIndex } from './active-index.js';
import { runScript, type StoreRedis } from './commands.js';
import { dropStaged, emitChunks, needsStaging, parseEmitMarker, stageExtraction } from './chunk-emission.js';
import { newSourceFields, parseMeta, parseSource, type KbMeta, type NewSource, type StoredSource } from './kb-records.js';
import type { KeySpace } from './keys.js';
import { commitSourcesScript, type CommitInput } from './scripts/commit-scripts.js';
import { feedRange, type FeedRange } from '../feed/cursor.js';
import { deleteKbScript } from './scripts/delete-scripts.js';
import { markSweep, sweepKb } from './kb-sweep.js';
import { addKnowledgeBaseScript } from './scripts/quota-scripts.js';
import { resultError } from './scripts/result-error.js';
import type { SourcePages } from './source-pages.js';
import type { NewSite } from './site-records.js';

/** A new knowledge base with its first sources. */
export interface CreateKbInput {
  workspaceId: string;
  kbId: string;
  name: string;
  sources: NewSource[];
  now: string;
  autoRefreshHours?: number;
  /** Its chunking settings (the deployment's when the client chose none); unset, those of `defaultChunking` apply. */
  chunking?: ChunkSettings;
  /** The deployment's settings; default DEFAULT_CHUNK_SETTINGS. */
  defaultChunking?: ChunkSettings;
  sites?: NewSite[];
  /** The workspace's quota of knowledge bases, counted and taken in one step; none: unlimited. */
  maxKnowledgeBases?: number;
  /** The quota of sources per knowledge base, checked by the commit; none: unlimited. */
  maxSources?: number;
}

/** A change of a knowledge base: new sources, and optionally a new name or refresh period. */
export interface AddSourcesInput {
  workspaceId: string;
  kbId: string;
  sources: NewSource[];
  now: string;
  name?: string;
  autoRefreshHours?: number;
  /** New chunking settings, already checked against each other. */
  chunking?: ChunkSettings;
  /** The deployment's settings; default DEFAULT_CHUNK_SETTINGS. */
  defaultChunking?: ChunkSettings;
  /** Change nothing unless the knowledge base is at this revision (If-Match). */
  ifRev?: number;
  sites?: NewSite[];
  /** A discovery's pages: added only while the site is at this run. */
  siteGuard?: { siteId: string; run: number };
  /** The quota of sources per knowledge base, checked by the commit; none: unlimited. */
  maxSources?: number;
}

/**
 * The record a commit writes for a new source that takes over no earlier
 * extraction: its fields, `pending`. Reused sources are left out (their
 * record mixes in the earlier extraction's fields).
 */
export function committedRecord(s: NewSource, now: string): StoredSource | null {
  return s.reuse ? null : parseSource({ ...newSourceFields(s, now), status: 'pending' });
}

/** The sources a commit added: all but those it found already there. */
function withoutSkipped(sources: NewSource[], skipped: string[]): NewSource[] {
  if (skipped.length === 0) return sources;
  const left = new Set(skipped);
  return sources.filter((s) => !left.has(s.documentId));
}

/**
 * Knowledge-base records: create, change, read and delete. Every change is
 * one Lua script on keys sharing the knowledge base's hash tag; the
 * workspace's list is a secondary index written around it, so a crash
 * between the two leaves at most an index entry that reads skip.
 */
export class KbRecordStore {
  constructor(
    private readonly redis: StoreRedis,
    private readonly keys: KeySpace,
    private readonly active: ActiveIndex,
    private readonly pages: SourcePages,
    private readonly blobTtlSeconds: number,
  ) {}

  /** A knowledge base's record without its sources, or null. */
  async getMeta(kbId: string): Promise<KbMeta | null> {
    return parseMeta(await this.redis.hgetall(this.keys.kb(kbId)));
  }

  /**
   * Reads a knowledge base and all its sources in order, or null. Records in
   * `known` (by document id) are taken as given instead of read: the sources
   * a commit has just written, whose records the caller holds. `siteIds` are
   * the ids of its sites, read in the same round trip as the source list.
   */
  async get(kbId: string, known?: ReadonlyMap<string, StoredSource>): Promise<{ meta: KbMeta; sources: StoredSource[]; siteIds: string[] } | null> {
    // A pipeline, not MULTI: a read must keep working while Redis refuses writes (out of memory).
    const [metaRes, idsRes, sitesRes] = (await this.redis
      .pipeline()
      .hgetall(this.keys.kb(kbId))
      .lrange(this.keys.sourceIds(kbId), 0, -1)
      .lrange(this.keys.sites(kbId), 0, -1)
      .exec()) as [[Error | null, Record<string, string>], [Error | null, string[]], [Error | null, string[]]];
    for (const [err] of [metaRes, idsRes, sitesRes]) if (err) throw err;
    const meta = parseMeta(metaRes[1]);
    if (!meta) return null;
    return { meta, sources: await this.pages.readSources(kbId, idsRes[1], known), siteIds: sitesRes[1] };
  }

  /**
   * Reads a knowledge base for a caller that keeps its source records: the
   * meta, the source and site ids in order, and the records of the sources
   * changed after `since` (the meta's `sourceSeq` the caller read them at; -1
   * for all) and of any listed source `held` says the caller lacks. A record
   * read as null was deleted meanwhile. Sources in `skip` are not read. Null
   * when the knowledge base is absent.
   *
   * The meta is read before the changed set, in one pipeline, so the set
   * holds at least every change up to the `sourceSeq` returned: a record read
   * here is as new as that number or newer, never older.
   */
  async getChanged(
    kbId: string,
    since: number,
    held: (id: string) => boolean,
    skip?: ReadonlyMap<string, unknown>,
  ): Promise<{ meta: KbMeta; ids: string[]; siteIds: string[]; read: Map<string, StoredSource | null> } | null> {
    const [metaRes, idsRes, sitesRes, changedRes] = (await this.redis
      .pipeline()
      .hgetall(this.keys.kb(kbId))
      .lrange(this.keys.sourceIds(kbId), 0, -1)
      .lrange(this.keys.sites(kbId), 0, -1)
      .zrangebyscore(this.keys.changedSources(kbId), since < 0 ? '-inf' : `(${since}`, '+inf')
      .exec()) as [[Error | null, Record<string, string>], [Error | null, string[]], [Error | null, string[]], [Error | null, string[]]];
    for (const [err] of [metaRes, idsRes, sitesRes, changedRes]) if (err) throw err;
    const meta = parseMeta(metaRes[1]);
    if (!meta) return null;
    const ids = idsRes[1];
    const wanted = new Set(changedRes[1]);
    for (const id of ids) if (!held(id)) wanted.add(id);
    const unread = [...wanted].filter((id) => !skip?.has(id));
    return { meta, ids, siteIds: sitesRes[1], read: await this.pages.readRecords(kbId, unread) };
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
  async create(input: CreateKbInput): Promise<NewSource[]> {
    const { workspaceId, kbId, maxKnowledgeBases, ...rest } = input;
    // The index entry is what the quota counts: taken with the count in one step, before the commit.
    const entered = await runScript(this.redis, this.keys, addKnowledgeBaseScript, { workspaceId, kbId, score: Date.parse(input.now), max: maxKnowledgeBases });
    if (entered.kind === 'full') throw knowledgeBasesQuotaError(maxKnowledgeBases!);
    const reply = await this.commit({ ...rest, workspaceId, kbId, create: true });
    if (reply.kind !== 'ok') {
      await this.redis.zrem(this.keys.workspaceKbs(workspaceId), kbId);
      if (reply.kind === 'over_quota') throw sourcesQuotaError(reply.would, input.maxSources!);
      throw new ConflictError(`could not create the knowledge base (${reply.kind})`);
    }
    return withoutSkipped(input.sources, reply.skipped);
  }

  /**
   * Appends sources and optionally renames, atomically; checks ownership, and
   * with `ifRev` changes nothing unless the knowledge base is at that revision.
   */
  async addSources(input: AddSourcesInput): Promise<NewSource[]> {
    return (await this.add(input, false)).added;
  }

  /**
   * A discovery's pages: those the per-knowledge-base quota (`maxSources`)
   * leaves room for are added, and `left` counts the others, left out.
   */
  async addPages(input: AddSourcesInput): Promise<{ added: NewSource[]; left: number }> {
    return this.add(input, true);
  }

  private async add(input: AddSourcesInput, partial: boolean): Promise<{ added: NewSource[]; left: number }> {
    const reply = await this.commit({ ...input, create: false, partial });
    if (reply.kind === 'precondition_failed') throw resultError(reply.kind, { rev: reply.rev });
    if (reply.kind === 'over_quota') throw sourcesQuotaError(reply.would, input.maxSources!);
    if (reply.kind !== 'ok') throw resultError(reply.kind, { kbId: input.kbId });
    return { added: withoutSkipped(input.sources, reply.skipped), left: reply.left };
  }

  private async commit(input: Omit<CommitInput, 'blobTtlSeconds'>) {
    // A site discovering is work in flight too: the reconciler finds a lost discovery through this index.
    if (input.sources.length > 0 || (input.sites?.length ?? 0) > 0) await this.active.markActive(input.kbId, input.now);
    // A large reused extraction is copied to staged keys on this knowledge base's slot first, in short commands.
    const sources = await Promise.all(
      input.sources.map(async (s) =>
        s.reuse && needsStaging(s.reuse.text, s.reuse.markdown, s.reuse.chunks)
          ? { ...s, reuse: { ...s.reuse, staged: await stageExtraction(this.redis, this.keys, { kbId: input.kbId, documentId: s.documentId }, s.reuse) } }
          : s,
      ),
    );
    const staged = sources.flatMap((s) => (s.reuse?.staged ? [{ documentId: s.documentId, staged: s.reuse.staged }] : []));
    const reply = await runScript(this.redis, this.keys, commitSourcesScript, { ...input, sources, blobTtlSeconds: this.blobTtlSeconds });
    if (reply.kind !== 'ok') {
      await Promise.all(staged.map((s) => dropStaged(this.redis, s.staged)));
      return reply;
    }
    // The feed events of the reused chunks, in short batches; a crash here leaves them to the reconciler.
    const skipped = new Set(reply.skipped);
    for (const { documentId } of staged) {
      if (skipped.has(documentId)) continue;
      const marker = parseEmitMarker(await this.redis.hget(this.keys.source(input.kbId, documentId), 'chunkEmit'));
      if (marker) await emitChunks(this.redis, this.keys, { kbId: input.kbId, documentId }, marker);
    }
    return reply;
  }

  /**
   * Deletes a knowledge base with every source and every key a source owns;
   * with `ifRev`, only while it is at that revision (else a precondition error
   * naming the current one). One short script makes it gone for readers; its
   * sources' keys are then removed in bounded batches (see sweepKb.lua).
   */
  async delete(workspaceId: string, kbId: string, ifRev?: number): Promise<FeedRange | undefined> {
    await markSweep(this.redis, this.keys, kbId);
    const reply = await runScript(this.redis, this.keys, deleteKbScript, { workspaceId, kbId, ifRev });
    if (reply.kind === 'precondition_failed') throw resultError(reply.kind, { rev: reply.rev });
    if (reply.kind !== 'ok') throw resultError(reply.kind, { kbId });
    // Gone for readers already; its sources' keys go in short batches (the reconciler's, after a crash).
    await sweepKb(this.redis, this.keys, kbId);
    // The feed stays for its retention (one knowledge_base.deleted) and counts against the workspace until it
    // expires; the expired entries leave with their bytes in the workspace's feed tally (workspaceFeedBytes.lua).
    const now = Date.now();
    const retained = this.keys.workspaceRetainedFeeds(workspaceId);
    await this.redis
      .multi()
      .zrem(this.keys.workspaceKbs(workspaceId), kbId)
      .zadd(retained, now + this.keys.changeRetention.retentionMs, kbId)
      .pexpire(retained, this.keys.changeRetention.retentionMs)
      .exec();
    return feedRange(reply.feedFrom, reply.feedTo);
  }
}
