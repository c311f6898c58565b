import type { RedisClient } from '../redis/redis.js';
import { ActiveIndex } from './active-index.js';
import { withCommands, type StoreRedis } from './commands.js';
import { ExtractionReuse } from './extraction-reuse.js';
import { KbRecordStore } from './kb-records-store.js';
import type { KeySpace } from './keys.js';
import { SourceChanges } from './source-changes.js';
import { SourcePages } from './source-pages.js';
import { recountKb, repairSource, type RecountResult, type RepairResult } from './source-repair.js';
import { SourceTransitions } from './source-transitions.js';
import { sweepDeleted } from './kb-sweep.js';

export { KEPT_BYTES_TTL_SECONDS, type FinishReport, type StartReport, type ProgressResult, type TransitionResult } from './source-transitions.js';
export type { AddSourcesInput, CreateKbInput } from './kb-records-store.js';
export type { RepairResult } from './source-repair.js';

export interface KbStoreOptions {
  /** How long staged bytes of a source are kept at most (seconds). */
  blobTtlSeconds: number;
}

/**
 * Knowledge bases and their sources, as one object for the API, the worker
 * and the admin CLI. Each job is its own module (records, pages of sources,
 * worker transitions, user changes, extraction reuse, the active index,
 * repair); this facade only wires them to one connection and key space.
 */
export class KbStore {
  private readonly redis: StoreRedis;
  private readonly records: KbRecordStore;
  private readonly pages: SourcePages;
  private readonly transitions: SourceTransitions;
  private readonly changes: SourceChanges;
  private readonly reuse: ExtractionReuse;
  private readonly index: ActiveIndex;

  constructor(
    redis: RedisClient,
    readonly keys: KeySpace,
    opts: KbStoreOptions,
  ) {
    this.redis = withCommands(redis);
    this.index = new ActiveIndex(this.redis, keys);
    this.pages = new SourcePages(this.redis, keys);
    this.records = new KbRecordStore(this.redis, keys, this.index, this.pages, opts.blobTtlSeconds);
    this.transitions = new SourceTransitions(this.redis, keys);
    this.changes = new SourceChanges(this.redis, keys, this.index);
    this.reuse = new ExtractionReuse(this.redis, keys);
  }

  // Knowledge-base records.
  getMeta: KbRecordStore['getMeta'] = (...a) => this.records.getMeta(...a);
  get: KbRecordStore['get'] = (...a) => this.records.get(...a);
  getChanged: KbRecordStore['getChanged'] = (...a) => this.records.getChanged(...a);
  list: KbRecordStore['list'] = (...a) => this.records.list(...a);
  create: KbRecordStore['create'] = (...a) => this.records.create(...a);
  addSources: KbRecordStore['addSources'] = (...a) => this.records.addSources(...a);
  addPages: KbRecordStore['addPages'] = (...a) => this.records.addPages(...a);
  delete: KbRecordStore['delete'] = (...a) => this.records.delete(...a);

  // Reads of sources.
  listSources: SourcePages['listSources'] = (...a) => this.pages.listSources(...a);
  getSource: SourcePages['getSource'] = (...a) => this.pages.getSource(...a);
  getText: SourcePages['getText'] = (...a) => this.pages.getText(...a);
  getMarkdown: SourcePages['getMarkdown'] = (...a) => this.pages.getMarkdown(...a);
  chunkPage: SourcePages['chunkPage'] = (...a) => this.pages.chunkPage(...a);
  chunkRange: SourcePages['chunkRange'] = (...a) => this.pages.chunkRange(...a);
  sourceIds: SourcePages['sourceIds'] = (...a) => this.pages.sourceIds(...a);
  readRecords: SourcePages['readRecords'] = (...a) => this.pages.readRecords(...a);
  readBlob: SourcePages['readBlob'] = (...a) => this.pages.readBlob(...a);
  settledBy: SourcePages['settledBy'] = (...a) => this.pages.settledBy(...a);

  // A user's changes of one source.
  retrySource: SourceChanges['retrySource'] = (...a) => this.changes.retrySource(...a);
  refreshSource: SourceChanges['refreshSource'] = (...a) => this.changes.refreshSource(...a);
  replaceSource: SourceChanges['replaceSource'] = (...a) => this.changes.replaceSource(...a);
  deleteSource: SourceChanges['deleteSource'] = (...a) => this.changes.deleteSource(...a);
  setMetadata: SourceChanges['setMetadata'] = (...a) => this.changes.setMetadata(...a);
  pendingMetadata: SourceChanges['pendingMetadata'] = (...a) => this.changes.pendingMetadata(...a);
  resumeMetadata: SourceChanges['resumeMetadata'] = (...a) => this.changes.resumeMetadata(...a);

  // The worker's transitions.
  startSourceReport: SourceTransitions['startSourceReport'] = (...a) => this.transitions.startSourceReport(...a);
  setProgress: SourceTransitions['setProgress'] = (...a) => this.transitions.setProgress(...a);
  finishSourceReport: SourceTransitions['finishSourceReport'] = (...a) => this.transitions.finishSourceReport(...a);
  startTexts: SourceTransitions['startTexts'] = (...a) => this.transitions.startTexts(...a);
  finishTexts: SourceTransitions['finishTexts'] = (...a) => this.transitions.finishTexts(...a);
  rechunkSourceReport: SourceTransitions['rechunkSourceReport'] = (...a) => this.transitions.rechunkSourceReport(...a);
  endRechunk: SourceTransitions['endRechunk'] = (...a) => this.transitions.endRechunk(...a);

  // Extraction reuse.
  recordExtractedFile: ExtractionReuse['recordExtractedFile'] = (...a) => this.reuse.recordExtractedFile(...a);
  findReusable: ExtractionReuse['findReusable'] = (...a) => this.reuse.findReusable(...a);

  // The active index and the reconciler's repair.
  activeSources: ActiveIndex['activeSources'] = (...a) => this.index.activeSources(...a);
  activeKbs: ActiveIndex['activeKbs'] = (...a) => this.index.activeKbs(...a);
  unmarkActive: ActiveIndex['unmarkActive'] = (...a) => this.index.unmarkActive(...a);

  /** Adds a knowledge base's active sources to the active index (data written before it existed). */
  async indexActive(kbId: string): Promise<boolean> {
    const found = await this.records.get(kbId);
    return found ? this.index.indexActive(kbId, found.sources) : false;
  }

  /** See {@link repairSource}. */
  repairSource(kbId: string, documentId: string, now: string): Promise<RepairResult> {
    return repairSource(this.redis, this.keys, kbId, documentId, now);
  }
  /** See {@link sweepDeleted}: the leftover keys of deleted knowledge bases whose own sweep did not finish. */
  sweepDeleted(nowMs?: number): Promise<number> {
    return sweepDeleted(this.redis, this.keys, nowMs);
  }
  /** See {@link recountKb}. */
  recountKb(kbId: string, maxSources: number, nowMs: number): Promise<RecountResult> {
    return recountKb(this.redis, this.keys, kbId, maxSources, nowMs);
  }
}
