import { applyChunkChange, chunkingTag, effectiveChunking, type ChunkSettings, type ChunkSettingsChange } from '../chunking/chunk-settings.js';
import { chunkView } from '../chunking/chunk-view.js';
import { ConflictError, ForbiddenError, OTHER_WORKSPACE, notFound } from '../errors.js';
import { assignTextBatches, sourceJobInfo, type SourceQueue } from '../queue/jobs.js';
import type { Logger } from '../runtime/logger.js';
import type { KnowledgeBase, KnowledgeBaseSummary, SourceStatus } from '../schemas/knowledge-base.js';
import type { Site } from '../schemas/site.js';
import { kbStatus, publicSource, type KbMeta, type NewSource, type StoredSource } from '../store/kb-records.js';
import type { KbStore } from '../store/kb-store.js';
import type { CommitLimits } from '../quotas.js';
import { committedRecord } from '../store/kb-records-store.js';
import { requeueSource } from './requeue.js';
import type { SourceTarget } from '../sources/source-ref.js';
import { publicSite, type NewSite } from '../store/site-records.js';
import type { SiteStore } from '../store/site-store.js';
import { viewStamp, type KbRows, type KbViewCache, type SourceRow } from './kb-view-cache.js';
import { PieceWriter, piecesOf, piecesText, type JsonPieces } from './json-pieces.js';

/** What a create or an update of a knowledge base brings: sources and sites to add, and settings to change. */
export interface SourceForm {
  name?: string;
  sources: NewSource[];
  /** Site sources, discovered by a worker after the commit. */
  sites: NewSite[];
  /** Refresh period of the URL sources, hours; 0 turns it off. */
  autoRefreshHours?: number;
  /** New chunking settings; the verb checks the overlap against the resulting maximum. */
  chunking?: ChunkSettingsChange;
}

/** What the knowledge-base verbs need. */
export interface KbDeps {
  kbs: KbStore;
  /** Site records; without it a knowledge base is answered without `sites`. */
  sites?: SiteStore;
  queue: SourceQueue;
  logger: Logger;
  /** The deployment's chunking settings (CHUNK_MAX_TOKENS, CHUNK_OVERLAP_TOKENS). */
  chunkDefaults: ChunkSettings;
  /** REFRESH_COOLDOWN_SECONDS in ms: how soon a ready URL source may be refreshed by hand again (default 0, none). */
  refreshCooldownMs?: number;
  now?: () => Date;
  /** Bodies of settled knowledge bases kept by revision for GET (KB_VIEW_CACHE_MB); without it every GET reads every source. */
  views?: KbViewCache;
}

const nowIso = (deps: KbDeps): string => (deps.now?.() ?? new Date()).toISOString();

/** A knowledge base without its sources, as answered; `defaults` are the deployment's chunking settings. */
export function summaryView(meta: KbMeta, defaults: ChunkSettings): KnowledgeBaseSummary {
  const chunking = effectiveChunking(meta.chunking, defaults);
  return {
    kbId: meta.kbId,
    name: meta.name,
    status: kbStatus(meta.sourceCounts, meta.sitesDiscovering),
    sourceCounts: meta.sourceCounts,
    ...(meta.autoRefreshHours > 0 ? { autoRefreshHours: meta.autoRefreshHours } : {}),
    chunkMaxTokens: chunking.maxTokens,
    chunkOverlapTokens: chunking.overlapTokens,
    createdAt: meta.createdAt,
    updatedAt: meta.updatedAt,
  };
}

export function knowledgeBaseView(meta: KbMeta, sources: StoredSource[], defaults: ChunkSettings, sites: Site[] = []): KnowledgeBase {
  // Ready sources cut with other settings than the knowledge base's: the re-chunk still to do.
  const tag = chunkingTag(effectiveChunking(meta.chunking, defaults));
  const rechunking = sources.filter((s) => s.status === 'ready' && s.chunking !== undefined && s.chunking !== tag).length;
  return { ...summaryView(meta, defaults), files: sources.map(publicSource), ...(rechunking > 0 && { rechunkingSources: rechunking }), ...(sites.length > 0 && { sites }) };
}

/**
 * Loads a knowledge base the workspace owns: 404 when absent, 403 when
 * another's. Records in `known` are not read again (see KbStore.get).
 */
export async function loadOwned(deps: KbDeps, workspaceId: string, kbId: string, known?: ReadonlyMap<string, StoredSource>) {
  const found = await deps.kbs.get(kbId, known);
  if (!found) throw notFound('Knowledge base', kbId);
  if (found.meta.workspaceId !== workspaceId) throw new ForbiddenError(OTHER_WORKSPACE);
  return found;
}

/** Checks existence and ownership without reading the sources; returns the meta. */
export async function assertOwned(deps: KbDeps, workspaceId: string, kbId: string): Promise<KbMeta> {
  const meta = await deps.kbs.getMeta(kbId);
  if (!meta) throw notFound('Knowledge base', kbId);
  if (meta.workspaceId !== workspaceId) throw new ForbiddenError(OTHER_WORKSPACE);
  return meta;
}

/** A knowledge base as answered, with the revision it was read at (its ETag). */
export interface KbSnapshot {
  view: KnowledgeBase;
  rev: number;
}

/** Files whose bytes the workspace has extracted before take that extraction over. */
async function withReuse(deps: KbDeps, workspaceId: string, sources: NewSource[]): Promise<NewSource[]> {
  const reusable = await deps.kbs.findReusable(workspaceId, sources);
  if (reusable.size === 0) return sources;
  return sources.map((s) => (reusable.has(s.documentId) ? { ...s, reuse: reusable.get(s.documentId)! } : s));
}

/** What a request adds, ready to commit: files that take an earlier extraction over, texts grouped into batch jobs. */
async function toCommit(deps: KbDeps, workspaceId: string, kbId: string, sources: NewSource[]): Promise<NewSource[]> {
  return assignTextBatches(kbId, await withReuse(deps, workspaceId, sources));
}

/**
 * Reads a knowledge base the workspace owns as the API answers it. After a
 * commit, `known` holds the records it has just written, which are not read
 * back: a PATCH of 1,000 texts answers without 1,000 more reads.
 */
export async function readKnowledgeBase(deps: KbDeps, workspaceId: string, kbId: string, known?: ReadonlyMap<string, StoredSource>): Promise<KbSnapshot> {
  const { meta, sources, siteIds } = await loadOwned(deps, workspaceId, kbId, known);
  const sites = deps.sites && siteIds.length > 0 ? await deps.sites.read(kbId, siteIds) : [];
  return { view: knowledgeBaseView(meta, sources, deps.chunkDefaults, sites.map(publicSite)), rev: meta.rev };
}

/** A knowledge base as answered, as JSON in pieces, with the revision it was read at (its ETag). */
export interface KbBody {
  body: JsonPieces;
  rev: number;
}

const COMMA = 0x2c;

/** A source's row: its JSON as answered, and what the answer counts of it. */
function sourceRow(s: StoredSource): SourceRow {
  return { json: Buffer.from(JSON.stringify(publicSource(s)), 'utf8'), status: s.status, ...(s.chunking !== undefined && { chunking: s.chunking }) };
}

/**
 * The JSON of {@link knowledgeBaseView} from source rows in order: the same
 * text as `JSON.stringify` of the view, built from each source's JSON kept
 * from an earlier read, in pieces.
 */
export function knowledgeBaseJson(meta: KbMeta, rows: readonly SourceRow[], defaults: ChunkSettings, sites: Site[] = []): JsonPieces {
  const tag = chunkingTag(effectiveChunking(meta.chunking, defaults));
  let rechunking = 0;
  for (const r of rows) if (r.status === 'ready' && r.chunking !== undefined && r.chunking !== tag) rechunking++;
  const summary = JSON.stringify(summaryView(meta, defaults));
  const tail = `]${rechunking > 0 ? `,"rechunkingSources":${rechunking}` : ''}${sites.length > 0 ? `,"sites":${JSON.stringify(sites)}` : ''}}`;
  const w = new PieceWriter().text(`${summary.slice(0, -1)},"files":[`);
  for (let i = 0; i < rows.length; i++) {
    if (i > 0) w.byte(COMMA);
    w.bytes(rows[i]!.json);
  }
  return w.text(tail).done();
}

/**
 * A knowledge base the workspace owns, as JSON. A settled knowledge base's
 * body is kept by revision (see KbViewCache): while it is current, the meta
 * hash is the only read. Otherwise its source rows kept from the last read
 * are brought up to date with the sources changed since (KbStore.getChanged),
 * so polling an active knowledge base of 2,000 sources reads the few that
 * moved, not all of them. After a commit, `known` holds the records it has
 * just written, which are not read back (nor kept: a worker may have moved
 * them already).
 */
export async function readKnowledgeBaseJson(deps: KbDeps, workspaceId: string, kbId: string, known?: ReadonlyMap<string, StoredSource>): Promise<KbBody> {
  const views = deps.views;
  if (!views?.enabled) {
    const { view, rev } = await readKnowledgeBase(deps, workspaceId, kbId, known);
    return { body: piecesOf([JSON.stringify(view)]), rev };
  }
  if (!known && views.has(kbId)) {
    const meta = await assertOwned(deps, workspaceId, kbId);
    const body = views.get(kbId, viewStamp(meta, meta.rev));
    if (body !== undefined) return { body, rev: meta.rev };
  }
  const { meta, body, rows } = await readChangedRows(deps, workspaceId, kbId, views.rows(kbId), known);
  if (views.verify) await verifyRows(deps, workspaceId, kbId, meta, body, known);
  views.setRows(kbId, rows);
  if (kbStatus(meta.sourceCounts, meta.sitesDiscovering) === 'in_progress' || known) views.delete(kbId);
  else views.set(kbId, viewStamp(meta, meta.rev), body);
  return { body, rev: meta.rev };
}

/** Reads what changed since `held` was read (everything when it is not of this knowledge base's current life), and answers the body. */
async function readChangedRows(deps: KbDeps, workspaceId: string, kbId: string, held: KbRows | undefined, known?: ReadonlyMap<string, StoredSource>) {
  const found = await deps.kbs.getChanged(kbId, held?.sourceSeq ?? -1, (id) => held?.rows.has(id) ?? false, known);
  if (!found) throw notFound('Knowledge base', kbId);
  const { meta, ids, siteIds, read } = found;
  if (meta.workspaceId !== workspaceId) throw new ForbiddenError(OTHER_WORKSPACE);
  // Rows of another life of this id, or read past a Redis restored to an earlier state, are not trusted.
  const trusted = held && held.createdAt === meta.createdAt && held.sourceSeq <= meta.sourceSeq ? held.rows : undefined;
  if (held && !trusted) {
    const missing = ids.filter((id) => !read.has(id) && !known?.has(id));
    for (const [id, record] of await deps.kbs.readRecords(kbId, missing)) read.set(id, record);
  }
  const rows = new Map<string, SourceRow>();
  const listed: SourceRow[] = [];
  for (const id of ids) {
    const record = known?.get(id);
    if (record) {
      listed.push(sourceRow(record));
      continue;
    }
    const fresh = read.get(id);
    const row = fresh ? sourceRow(fresh) : fresh === null ? undefined : trusted?.get(id);
    if (!row) continue;
    rows.set(id, row);
    listed.push(row);
  }
  const sites = deps.sites && siteIds.length > 0 ? (await deps.sites.read(kbId, siteIds)).map(publicSite) : [];
  const body = knowledgeBaseJson(meta, listed, deps.chunkDefaults, sites);
  return { meta, body, rows: { createdAt: meta.createdAt, sourceSeq: meta.sourceSeq, rows } satisfies KbRows };
}

/**
 * Checks an answer built from kept rows against a read of every source
 * (KbViewCache.verify): when no source changed in between, the two must be
 * the same text, or a store script changed a record without recording it
 * (touchSource) and readers that keep rows would answer it stale.
 */
async function verifyRows(deps: KbDeps, workspaceId: string, kbId: string, meta: KbMeta, body: JsonPieces, known?: ReadonlyMap<string, StoredSource>): Promise<void> {
  // A commit's answer shows its sources as it wrote them (a worker may have claimed them since): so does the check.
  const { view } = await readKnowledgeBase(deps, workspaceId, kbId, known);
  const after = await deps.kbs.getMeta(kbId);
  if (!after || after.sourceSeq !== meta.sourceSeq || after.rev !== meta.rev || after.updatedAt !== meta.updatedAt) return;
  if (JSON.stringify(view) !== piecesText(body)) throw new Error(`kept source rows of knowledge base ${kbId} differ from its records at sourceSeq ${meta.sourceSeq}`);
}

/** The records a commit wrote for `added` at `now`, by document id (sources that reused an extraction are read instead). */
function committedRecords(added: NewSource[], now: string): Map<string, StoredSource> {
  const known = new Map<string, StoredSource>();
  for (const s of added) {
    const record = committedRecord(s, now);
    if (record) known.set(s.documentId, record);
  }
  return known;
}

/**
 * Enqueues the first run of each new source. A failure here does not undo the
 * committed sources: they stay `pending` and the worker's reconciler enqueues
 * them, so the client's request is not lost.
 */
async function enqueueNew(deps: KbDeps, workspaceId: string, kbId: string, sources: NewSource[]): Promise<void> {
  try {
    // A source that took over an earlier extraction is ready already and needs no job,
    // unless its chunks were cut with other settings: the commit left it pending for a re-chunk.
    const reused = sources.filter((s) => s.reuse);
    const pending = await Promise.all(reused.map(async (s) => (await deps.kbs.getSource(kbId, s.documentId))?.status === 'pending'));
    const toRun = [...sources.filter((s) => !s.reuse), ...reused.filter((_, i) => pending[i])];
    await deps.queue.enqueue(toRun.map((s) => ({ workspaceId, kbId, documentId: s.documentId, run: 1, ...sourceJobInfo(s), ...(s.batchJob && { batchJob: s.batchJob }) })));
  } catch (err) {
    deps.logger.warn({ err, kbId, count: sources.length }, 'enqueue failed; the reconciler will pick the sources up');
  }
}

/**
 * Queues the re-chunk of every ready source of the knowledge base. A failure
 * is logged: the settings are stored, and the next change of them (or a
 * source's next run) cuts chunks with them.
 */
async function enqueueRechunk(deps: KbDeps, workspaceId: string, kbId: string, chunking: ChunkSettings): Promise<void> {
  try {
    await deps.queue.rechunk({ workspaceId, kbId, ...chunking });
  } catch (err) {
    deps.logger.warn({ err, kbId }, 'could not queue the re-chunk of the knowledge base');
  }
}

/** Queues the first discovery of each new site; a failure is logged (the site stays discovering until a refresh). */
async function enqueueDiscovery(deps: KbDeps, workspaceId: string, kbId: string, sites: NewSite[]): Promise<void> {
  if (sites.length === 0) return;
  try {
    await deps.queue.discover(sites.map((s) => ({ workspaceId, kbId, siteId: s.siteId, run: 1 })));
  } catch (err) {
    deps.logger.warn({ err, kbId, count: sites.length }, 'enqueue of site discovery failed');
  }
}

export async function createKnowledgeBase(
  deps: KbDeps,
  workspaceId: string,
  kbId: string,
  form: SourceForm & { name: string },
  limits: CommitLimits = {},
): Promise<KbBody> {
  const chunking = applyChunkChange(deps.chunkDefaults, form.chunking ?? {});
  const sources = await toCommit(deps, workspaceId, kbId, form.sources);
  const now = nowIso(deps);
  const added = await deps.kbs.create({
    workspaceId,
    kbId,
    name: form.name,
    sources,
    now,
    autoRefreshHours: form.autoRefreshHours,
    chunking,
    defaultChunking: deps.chunkDefaults,
    sites: form.sites,
    ...limits,
  });
  await enqueueNew(deps, workspaceId, kbId, added);
  await enqueueDiscovery(deps, workspaceId, kbId, form.sites);
  if (form.autoRefreshHours) await deps.queue.scheduleRefresh({ workspaceId, kbId }, form.autoRefreshHours);
  return readKnowledgeBaseJson(deps, workspaceId, kbId, committedRecords(added, now));
}

/**
 * Renames and/or appends sources in one atomic step (only at revision
 * `ifRev` when given), then enqueues them. A source the knowledge base
 * already has (same file bytes, URL, or text and title) is not added again.
 */
export async function updateKnowledgeBase(
  deps: KbDeps,
  workspaceId: string,
  kbId: string,
  form: SourceForm,
  ifRev?: number,
  limits: CommitLimits = {},
): Promise<KbBody> {
  let chunking: ChunkSettings | undefined;
  if (form.chunking) {
    // Checked against the settings in force, so an overlap given alone is held to the current maximum.
    const meta = await assertOwned(deps, workspaceId, kbId);
    chunking = applyChunkChange(effectiveChunking(meta.chunking, deps.chunkDefaults), form.chunking);
  }
  const sources = await toCommit(deps, workspaceId, kbId, form.sources);
  const now = nowIso(deps);
  const added = await deps.kbs.addSources({
    workspaceId,
    kbId,
    sources,
    now,
    name: form.name,
    ifRev,
    autoRefreshHours: form.autoRefreshHours,
    ...(chunking ? { chunking } : {}),
    defaultChunking: deps.chunkDefaults,
    sites: form.sites,
    ...(limits.maxSources !== undefined && { maxSources: limits.maxSources }),
  });
  await enqueueNew(deps, workspaceId, kbId, added);
  await enqueueDiscovery(deps, workspaceId, kbId, form.sites);
  if (chunking) await enqueueRechunk(deps, workspaceId, kbId, chunking);
  if (form.autoRefreshHours !== undefined) await deps.queue.scheduleRefresh({ workspaceId, kbId }, form.autoRefreshHours);
  return readKnowledgeBaseJson(deps, workspaceId, kbId, committedRecords(added, now));
}

/** One source with its extracted text (null until ready). */
export async function readSource(deps: KbDeps, { workspaceId, kbId, documentId }: SourceTarget, format: 'text' | 'markdown' = 'text') {
  await assertOwned(deps, workspaceId, kbId);
  const source = await deps.kbs.getSource(kbId, documentId);
  if (!source) throw notFound('Document', documentId, `knowledge base ${kbId}`);
  const ready = source.status === 'ready';
  const text = ready ? await deps.kbs.getText(kbId, documentId) : null;
  if (format === 'text') return { ...publicSource(source), text };
  const markdown = ready ? await deps.kbs.getMarkdown(kbId, documentId) : null;
  return { ...publicSource(source), text, markdown };
}

/** A page of a knowledge base's sources (without text), optionally of one status. */
export async function listSources(deps: KbDeps, workspaceId: string, kbId: string, page: number, size: number, status?: SourceStatus) {
  await assertOwned(deps, workspaceId, kbId);
  const { items, total } = await deps.kbs.listSources(kbId, page, size, status);
  return { items: items.map(publicSource), total };
}

/** A page of a ready source's chunks; 409 while the source is not ready. */
export async function getChunks(deps: KbDeps, workspaceId: string, kbId: string, documentId: string, page: number, size: number) {
  await assertOwned(deps, workspaceId, kbId);
  const source = await deps.kbs.getSource(kbId, documentId);
  if (!source) throw notFound('Document', documentId, `knowledge base ${kbId}`);
  if (source.status !== 'ready') throw new ConflictError(`the source is ${source.status}; chunks exist once it is ready`);
  const { items, total } = await deps.kbs.chunkPage(kbId, documentId, page, size);
  return { items: items.map((c) => chunkView(kbId, source, c)), total };
}

/**
 * Puts a failed source back to pending under a new run (or, `refresh`, a
 * ready or failed URL source, refused with 429 within its cooldown) and
 * enqueues it: one script, which answers with the record, and the enqueue.
 */
export async function rerunSource(deps: KbDeps, target: SourceTarget, how: 'retry' | 'refresh') {
  const cooldownMs = how === 'refresh' ? deps.refreshCooldownMs : undefined;
  const result = await requeueSource(deps, target, how, nowIso(deps), { ...(cooldownMs && { cooldownMs }) });
  if (!result.requeued || !result.source) throw new Error(`a ${how} answered without the source`);
  return publicSource(result.source);
}
