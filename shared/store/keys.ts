import { CHANGED_SOURCES_SUFFIX } from '../sources/lifecycle.js';

/** The keys one source owns (or, from {@link KeySpace.sourceKeyPrefixes}, their prefixes). */
export interface SourceKeys {
  /** The source's record (hash). */
  record: string;
  text: string;
  /** The uploaded bytes, kept until the run ends (or a day after a failure that a retry may mend). */
  blob: string;
  markdown: string;
  chunks: string;
  /** Chunk id to a digest of the chunk as the change feed last showed it (what a re-write compares against). */
  chunkIds: string;
  /** The feed entries a large write of the chunks still has to emit, in order (see emitChunks.lua). */
  emitList: string;
  /** The chunk ids that emission has shown so far (hash): what its deletion pass keeps. */
  emitSeen: string;
  /** A deleted source's chunk ids whose chunk.deleted events are still to be written (hash; see dropChunks.lua). */
  dropIds: string;
}

/** How long the change feed keeps its events, how many and how many bytes at most per knowledge base, and per workspace. */
export interface ChangeRetention {
  retentionMs: number;
  maxEvents: number;
  /** Bytes one knowledge base's feed may hold (CHANGES_MAX_BYTES). */
  maxBytes: number;
  /** Bytes all of a workspace's feeds may hold together (CHANGES_WORKSPACE_MAX_BYTES). */
  workspaceMaxBytes: number;
  /** Bytes of events one page of the feed carries, about (past its first event). */
  pageMaxBytes: number;
}

/** The defaults of CHANGES_RETENTION_HOURS, CHANGES_MAX_EVENTS, CHANGES_MAX_BYTES and CHANGES_WORKSPACE_MAX_BYTES. */
export const DEFAULT_CHANGE_RETENTION: ChangeRetention = {
  retentionMs: 168 * 3_600_000,
  maxEvents: 100_000,
  maxBytes: 64 * 1024 * 1024,
  workspaceMaxBytes: 256 * 1024 * 1024,
  pageMaxBytes: 1024 * 1024,
};

/**
 * Every Redis key the store uses, in one place. Keys of one knowledge base share
 * the hash tag `{kb:<id>}` so its multi-key scripts run on Redis Cluster too;
 * API keys share `{keys}` and the admin-loaded catalog shares `{catalog}`;
 * webhooks use `{wh:<id>}` and `{whws:<workspaceId>}`; a fetched host's
 * slots use `{host:<host:port>}`.
 * Ids are validated against ID_PATTERN before they get here, so they never
 * contain `{`, `}` or `:`.
 */
export class KeySpace {
  /**
   * @param changes the change feed's retention, which the scripts that write
   *   the feed trim it to (carried here because every script declaration gets the key space)
   */
  constructor(
    readonly prefix: string,
    readonly changeRetention: ChangeRetention = DEFAULT_CHANGE_RETENTION,
  ) {}

  kbTag(kbId: string): string {
    return `${this.prefix}:{kb:${kbId}}`;
  }
  kb(kbId: string): string {
    return `${this.kbTag(kbId)}:meta`;
  }
  /** A knowledge base's source ids, in order (the key string keeps its first name, `docs`, for stored data). */
  sourceIds(kbId: string): string {
    return `${this.kbTag(kbId)}:docs`;
  }
  /** The keys every change of a knowledge base's list of sources takes: its meta hash, source list, active index and fingerprints. */
  sourceIndex(kbId: string): { meta: string; sourceIds: string; active: string; fingerprints: string } {
    return { meta: this.kb(kbId), sourceIds: this.sourceIds(kbId), active: this.active(kbId), fingerprints: this.fingerprints(kbId) };
  }
  /** Its sources by the number of their last change (see CHANGED_SOURCES_SUFFIX), for readers that keep records. */
  changedSources(kbId: string): string {
    return `${this.kbTag(kbId)}:${CHANGED_SOURCES_SUFFIX}`;
  }
  /** A source's record (hash). */
  source(kbId: string, documentId: string): string {
    return this.sourcePrefix(kbId) + documentId;
  }
  text(kbId: string, documentId: string): string {
    return this.textPrefix(kbId) + documentId;
  }
  blob(kbId: string, documentId: string): string {
    return this.blobPrefix(kbId) + documentId;
  }
  /** A source's extraction as Markdown. */
  markdown(kbId: string, documentId: string): string {
    return this.markdownPrefix(kbId) + documentId;
  }
  /** A source's chunks: a list of JSON entries with their place in the Markdown. */
  chunks(kbId: string, documentId: string): string {
    return this.chunksPrefix(kbId) + documentId;
  }
  /** Every key one source owns; deleting a source deletes exactly these. */
  sourceKeys(kbId: string, documentId: string): SourceKeys {
    const p = this.sourceKeyPrefixes(kbId);
    return {
      record: p.record + documentId,
      text: p.text + documentId,
      blob: p.blob + documentId,
      markdown: p.markdown + documentId,
      chunks: p.chunks + documentId,
      chunkIds: p.chunkIds + documentId,
      emitList: p.emitList + documentId,
      emitSeen: p.emitSeen + documentId,
      dropIds: p.dropIds + documentId,
    };
  }
  /** The prefixes of {@link sourceKeys}, for scripts that find source ids inside Redis (prefix .. documentId). */
  sourceKeyPrefixes(kbId: string): SourceKeys {
    return {
      record: this.sourcePrefix(kbId),
      text: this.textPrefix(kbId),
      blob: this.blobPrefix(kbId),
      markdown: this.markdownPrefix(kbId),
      chunks: this.chunksPrefix(kbId),
      chunkIds: `${this.kbTag(kbId)}:cids:`,
      emitList: `${this.kbTag(kbId)}:cemit:`,
      emitSeen: `${this.kbTag(kbId)}:cseen:`,
      dropIds: `${this.kbTag(kbId)}:cdrop:`,
    };
  }
  sourcePrefix(kbId: string): string {
    return `${this.kbTag(kbId)}:doc:`;
  }
  textPrefix(kbId: string): string {
    return `${this.kbTag(kbId)}:text:`;
  }
  blobPrefix(kbId: string): string {
    return `${this.kbTag(kbId)}:blob:`;
  }
  markdownPrefix(kbId: string): string {
    return `${this.kbTag(kbId)}:md:`;
  }
  chunksPrefix(kbId: string): string {
    return `${this.kbTag(kbId)}:chunks:`;
  }
  /** The change feed: a stream of chunk.upserted and chunk.deleted events, on the knowledge base's slot. */
  changes(kbId: string): string {
    return `${this.kbTag(kbId)}:changes`;
  }
  /** The feed's bookkeeping (hash): `floor`, `head`, `total`, `bytes`, `workspaceId`, `deleted` (see the feed Lua include). */
  changesInfo(kbId: string): string {
    return `${this.kbTag(kbId)}:changes:info`;
  }
  /** The search index's state (hash): the feed position it has applied, chunk count and length totals. */
  searchState(kbId: string): string {
    return `${this.kbTag(kbId)}:sx:state`;
  }
  /** The search index's chunks (hash): chunk id to its source, lengths and terms. */
  searchDocs(kbId: string): string {
    return `${this.kbTag(kbId)}:sx:docs`;
  }
  /** The search index's terms (set), so the index can be dropped whole. */
  searchTerms(kbId: string): string {
    return `${this.kbTag(kbId)}:sx:terms`;
  }
  /** A term's postings (hash): the prefix .. term; chunk id to `body,heading` term frequencies. */
  searchPostingsPrefix(kbId: string): string {
    return `${this.kbTag(kbId)}:sx:p:`;
  }
  /** A knowledge base's sources by fingerprint (see sourceFingerprint), for de-duplication. */
  fingerprints(kbId: string): string {
    return `${this.kbTag(kbId)}:fingerprints`;
  }
  /** A knowledge base's site ids, in order. */
  sites(kbId: string): string {
    return `${this.kbTag(kbId)}:sites`;
  }
  /** A site's record (hash); the prefix .. siteId is the record. */
  site(kbId: string, siteId: string): string {
    return this.sitePrefix(kbId) + siteId;
  }
  sitePrefix(kbId: string): string {
    return `${this.kbTag(kbId)}:site:`;
  }
  /** A site's pages that later discoveries did not find: documentId to consecutive misses. */
  /** Sites whose pages are being deleted, by when their delete began (see deleteSite.lua). */
  siteSweeps(kbId: string): string {
    return `${this.kbTag(kbId)}:sitesweeps`;
  }
  siteMisses(kbId: string, siteId: string): string {
    return `${this.site(kbId, siteId)}:misses`;
  }
  /** Pages a workspace's running discoveries may still add (the CRAWL_WORKSPACE_MAX_PAGES budget in use). */
  crawlBudget(workspaceId: string): string {
    return `${this.prefix}:{crawl:${workspaceId}}:holds`;
  }
  /** A knowledge base's pending and processing sources, scored by when they entered that state (ms). */
  active(kbId: string): string {
    return `${this.kbTag(kbId)}:active`;
  }
  /**
   * A knowledge base's sources whose metadata change has chunk.upserted
   * events still to emit, scored by when their emission last advanced (ms):
   * the reconciler finishes those a crash interrupted.
   */
  metadataEmits(kbId: string): string {
    return `${this.kbTag(kbId)}:metaemits`;
  }
  /**
   * Knowledge bases that may have active sources, scored by when one was last
   * added. Its own hash tag: it is written beside the knowledge-base scripts,
   * before them, so a crash leaves at most an entry the reconciler drops.
   */
  activeKbs(): string {
    return `${this.prefix}:{active}:kbs`;
  }
  /**
   * A knowledge base's outbox: the domain events (source.ready, knowledge_base.settled, ...)
   * its scripts append in the same script as the change they tell of, until the relay has queued
   * their deliveries (see the outbox Lua include). On the knowledge base's slot; it outlives a
   * deleted knowledge base until relayed (and expires).
   */
  outbox(kbId: string): string {
    return `${this.kbTag(kbId)}:outbox`;
  }
  /** The outbox's bookkeeping (hash): `bytes` held, `dropped` (events the bound cut before they were relayed). */
  outboxInfo(kbId: string): string {
    return `${this.kbTag(kbId)}:outbox:info`;
  }
  /**
   * Knowledge bases whose outbox may hold events not yet relayed, each scored
   * by a counter bumped before every script that may append to it. Its own
   * hash tag: the bump happens beside the script, before it, so a crash
   * leaves at most an entry the relay finds empty; the relay drops an entry
   * only when no bump came since it read the score.
   */
  outboxKbs(): string {
    return `${this.prefix}:{outbox}:kbs`;
  }
  /** Which relay is relaying a knowledge base's outbox now (a lease). */
  outboxLease(kbId: string): string {
    return `${this.prefix}:{outbox}:lease:${kbId}`;
  }
  /** Set once the active index has been built from existing data. */
  activeIndexBuilt(): string {
    return `${this.prefix}:{active}:built`;
  }
  /** SCAN pattern of every knowledge base's meta hash, and the way back to its id. */
  kbMetaPattern(): string {
    return `${this.prefix}:{kb:*}:meta`;
  }
  kbIdOfMeta(metaKey: string): string | undefined {
    const head = `${this.prefix}:{kb:`;
    if (!metaKey.startsWith(head) || !metaKey.endsWith('}:meta')) return undefined;
    return metaKey.slice(head.length, -'}:meta'.length);
  }
  stage(kbId: string, stageId: string): string {
    return `${this.kbTag(kbId)}:stage:${stageId}`;
  }
  /**
   * A value staged for one large write of a source (its text, Markdown, chunk
   * entries or feed entries, `part`), sent in bounded slices before the script
   * that renames it into place; `nonce` is the write's own. Expires on its own
   * (see staging.ts), so a crashed writer leaves nothing for long.
   */
  staged(kbId: string, documentId: string, nonce: string, part: string): string {
    return `${this.kbTag(kbId)}:staged:${documentId}:${nonce}:${part}`;
  }
  /** A deleted knowledge base's source ids whose keys are still to remove (see sweepKb.lua). */
  sweepSources(kbId: string): string {
    return `${this.kbTag(kbId)}:sweep:docs`;
  }
  /** A deleted knowledge base's legacy search terms whose postings are still to remove. */
  sweepTerms(kbId: string): string {
    return `${this.kbTag(kbId)}:sweep:terms`;
  }
  /**
   * Deleted knowledge bases whose keys may still be swept, scored by when the
   * deletion began (ms). Its own hash tag: written before the delete script,
   * so a crash leaves at most an entry the reconciler finds empty.
   */
  sweepKbs(): string {
    return `${this.prefix}:{sweep}:kbs`;
  }
  /** A workspace's quota overrides (hash: quota name to a count, 0 for unlimited), set by the operator. */
  workspaceQuotas(workspaceId: string): string {
    return `${this.prefix}:{ws:${workspaceId}}:quotas`;
  }

  /**
   * A workspace's quota holds (hash): reservations of requests between their
   * check and their commit, their sums, and the epoch of the last settle
   * (see reserveQuota.lua); with the two sorted sets below.
   */
  quotaHolds(workspaceId: string): string {
    return `${this.prefix}:{ws:${workspaceId}}:holds`;
  }
  /** The live reservations, scored by when each lapses (ms). */
  quotaHoldsLive(workspaceId: string): string {
    return `${this.prefix}:{ws:${workspaceId}}:holds:live`;
  }
  /** The commits settled lately, scored by epoch. */
  quotaHoldsSettled(workspaceId: string): string {
    return `${this.prefix}:{ws:${workspaceId}}:holds:settled`;
  }

  /** The bytes each of a workspace's change feeds holds (hash: kbId to bytes, and `:total`), for CHANGES_WORKSPACE_MAX_BYTES. */
  workspaceFeedBytes(workspaceId: string): string {
    return `${this.prefix}:{ws:${workspaceId}}:feed-bytes`;
  }

  /** A workspace's deleted knowledge bases whose change feed is still kept, scored by when it expires (ms). */
  workspaceRetainedFeeds(workspaceId: string): string {
    return `${this.prefix}:{ws:${workspaceId}}:retained-feeds`;
  }

  /** Secondary index: a workspace's knowledge bases, scored by creation time. */
  workspaceKbs(workspaceId: string): string {
    return `${this.prefix}:{ws:${workspaceId}}:kbs`;
  }

  apiKeyByHash(hash: string): string {
    return `${this.prefix}:{keys}:hash:${hash}`;
  }
  apiKeyById(keyId: string): string {
    return `${this.prefix}:{keys}:id:${keyId}`;
  }
  workspaceApiKeys(workspaceId: string): string {
    return `${this.prefix}:{keys}:ws:${workspaceId}`;
  }

  agent(agentId: string): string {
    return `${this.prefix}:{catalog}:agent:${agentId}`;
  }
  workspaceAgents(workspaceId: string): string {
    return `${this.prefix}:{catalog}:agents:${workspaceId}`;
  }
  qaRule(qaRuleId: string): string {
    return `${this.prefix}:{catalog}:rule:${qaRuleId}`;
  }
  qaIssue(qaIssueId: string): string {
    return `${this.prefix}:{catalog}:issue:${qaIssueId}`;
  }
  /** Request counter of one API key in one minute window. */
  rateWindow(keyId: string, minute: number): string {
    return `${this.prefix}:{rate:${keyId}}:${minute}`;
  }
  catalogSeq(): string {
    return `${this.prefix}:{catalog}:seq`;
  }

  /**
   * A webhook's keys share `{wh:<id>}`, so deleting it and recording a
   * delivery are single-slot scripts; its workspace's index has a tag of its
   * own, written around them like a workspace's knowledge bases.
   */
  webhookTag(webhookId: string): string {
    return `${this.prefix}:{wh:${webhookId}}`;
  }
  webhook(webhookId: string): string {
    return `${this.webhookTag(webhookId)}:meta`;
  }
  /** The newest delivery attempts of a webhook, newest first, capped. */
  webhookDeliveries(webhookId: string): string {
    return `${this.webhookTag(webhookId)}:deliveries`;
  }
  /** Delivery slots of a webhook's endpoint: lease tokens scored by expiry (ms). */
  webhookLeases(webhookId: string): string {
    return `${this.webhookTag(webhookId)}:leases`;
  }
  /** A workspace's webhooks, scored by creation time (ms). */
  workspaceWebhooks(workspaceId: string): string {
    return `${this.prefix}:{whws:${workspaceId}}:hooks`;
  }
  /** The body of one event, kept while its deliveries may still be retried. */
  webhookEvent(workspaceId: string, eventId: string): string {
    return `${this.prefix}:{whws:${workspaceId}}:event:${eventId}`;
  }

  /** A workspace's extracted files: SHA-256 of the bytes to `<kbId>/<documentId>` of a ready source. */
  extractedFiles(workspaceId: string): string {
    return `${this.prefix}:{xref:${workspaceId}}:files`;
  }

  /** The recorded outcome of one Idempotency-Key of a workspace (`keyHash`: SHA-256 of the key). */
  idempotency(workspaceId: string, keyHash: string): string {
    return `${this.prefix}:{idem:${workspaceId}}:${keyHash}`;
  }
  /** A workspace's live Idempotency-Key records, key hash scored by expiry (ms): what counts them against the workspace. */
  idempotencyIndex(workspaceId: string): string {
    return `${this.prefix}:{idem:${workspaceId}}:index`;
  }

  /**
   * One fetched host's keys share `{host:<host:port>}`, so taking a slot is a
   * single-slot script. A host name may hold `{` or `}` (the URL parser
   * allows them), which would end the hash tag early: they are
   * percent-encoded, and `%` never appears in a parsed host name.
   */
  hostTag(host: string): string {
    return `${this.prefix}:{host:${host.replace(/[{}]/g, encodeURIComponent)}}`;
  }
  /** The host's fetch leases: tokens scored by expiry (ms). */
  hostLeases(host: string): string {
    return `${this.hostTag(host)}:leases`;
  }
  /** When the host's next fetch may start (ms); expires with the spacing. */
  hostNextStart(host: string): string {
    return `${this.hostTag(host)}:next`;
  }

  /**
   * One of BullMQ's keys of a service queue, as BullMQ builds it from
   * `queuePrefix` (shared/queue/jobs.ts): read by the fair-share script, which
   * runs in the queue's `{queue}` slot.
   */
  bullQueueKey(queueName: string, type: 'prioritized' | 'wait' | 'delayed'): string {
    return `${this.prefix}:{queue}:${queueName}:${type}`;
  }
  /** A queue's fair-share ledger: workspace id to the priority of its last job (same slot as the queue). */
  fairShareLedger(queueName: string): string {
    return `${this.prefix}:{queue}:fair:${queueName}`;
  }

  /** Job counts by type, status and error code, written by every worker. */
  jobMetrics(): string {
    return `${this.prefix}:{metrics}:jobs`;
  }
  /** Extraction time and bytes by format, written by every worker. */
  extractMetrics(): string {
    return `${this.prefix}:{metrics}:extract`;
  }
}
