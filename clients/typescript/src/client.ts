import createClient, { type Client } from 'openapi-fetch';
import { followChanges, type ChangesPage, type ChunkListing, type FollowOptions } from './change-feed.js';
import { unwrap } from './errors.js';
import type { components, paths } from './schema.js';
import { waitUntilSettled, type KnowledgeBase, type SettleOptions } from './settle.js';
import { sourceForm, type SiteSource, type SourceFormInput } from './source-form.js';

/** A source of a knowledge base as the API answers it. */
export type Source = components['schemas']['Source'];
export type KnowledgeBasePage = components['schemas']['KnowledgeBasePage'];
export type ChunkPage = components['schemas']['ChunkPage'];
export type SearchRequest = components['schemas']['SearchRequest'];
export type SearchResult = components['schemas']['SearchResult'];

/** Where the API is and the key to use. */
export interface KbClientOptions {
  /** e.g. `http://localhost:3000` (no trailing `/v1`). */
  baseUrl: string;
  apiKey: string;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
}

/** Options of a POST or PATCH. */
export interface WriteOptions {
  /** Sent as `Idempotency-Key`: a repeat within 24 h gets the first answer and changes nothing. */
  idempotencyKey?: string;
  /** PATCH only: change the knowledge base only at this ETag (412 otherwise). */
  ifMatch?: string;
}

/** openapi-fetch sends a FormData body as it is (fetch adds the multipart boundary). */
const asForm = { bodySerializer: (body: unknown) => body as FormData };

/**
 * A typed client of the kb-ingest API. `api` is the openapi-fetch client
 * generated from the OpenAPI document: every route, its parameters, bodies
 * and answers typed (pass its result to `unwrap` for the data or a
 * `KbApiError`). The methods here are what a generated client cannot do
 * well: the multipart form of sources, waiting until a knowledge base
 * settles, and following the change feed.
 */
export function createKbClient(opts: KbClientOptions) {
  const api: Client<paths> = createClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/$/, ''),
    headers: { 'X-API-Key': opts.apiKey },
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  const writeHeaders = (w: WriteOptions) => ({
    ...(w.idempotencyKey ? { 'idempotency-key': w.idempotencyKey } : {}),
    ...(w.ifMatch ? { 'if-match': w.ifMatch } : {}),
  });
  const getKnowledgeBase = async (kbId: string): Promise<KnowledgeBase> => unwrap(await api.GET('/v1/knowledge-bases/{kbId}', { params: { path: { kbId } } }));
  const updateKnowledgeBase = async (kbId: string, input: SourceFormInput, w: WriteOptions = {}): Promise<KnowledgeBase> =>
    unwrap(await api.PATCH('/v1/knowledge-bases/{kbId}', { params: { path: { kbId }, header: writeHeaders(w) }, body: sourceForm(input) as never, ...asForm }));
  const changes = async (kbId: string, after?: string, size = 100): Promise<ChangesPage> =>
    unwrap(await api.GET('/v1/knowledge-bases/{kbId}/changes', { params: { path: { kbId }, query: { size, ...(after ? { after } : {}) } } }));
  const listChunks = async (kbId: string, after?: string, size = 100): Promise<ChunkListing> =>
    unwrap(await api.GET('/v1/knowledge-bases/{kbId}/chunks', { params: { path: { kbId }, query: { size, ...(after ? { after } : {}) } } }));

  return {
    api,
    /** Creates a knowledge base named `input.name` with its first sources (texts, URLs, sites, files). */
    async createKnowledgeBase(input: SourceFormInput & { name: string }, w: WriteOptions = {}): Promise<KnowledgeBase> {
      return unwrap(await api.POST('/v1/knowledge-bases', { body: sourceForm(input) as never, params: { header: writeHeaders(w) }, ...asForm }));
    },
    /** Adds sources, renames, or changes the auto-refresh or chunk settings: all or nothing. */
    updateKnowledgeBase,
    /** {@link updateKnowledgeBase} under the name of its common use. */
    addSources: updateKnowledgeBase,
    /** Adds site sources; their discovery runs in the background (`GET …/sites/{siteId}`). */
    addSites(kbId: string, sites: SiteSource[], w: WriteOptions = {}): Promise<KnowledgeBase> {
      return updateKnowledgeBase(kbId, { sites }, w);
    },
    getKnowledgeBase,
    /** Every knowledge base of the key's workspace, one page at a time. */
    async listKnowledgeBases(page = 0, size = 20): Promise<KnowledgeBasePage> {
      return unwrap(await api.GET('/v1/knowledge-bases', { params: { query: { page, size } } }));
    },
    /** A page of a ready document's chunks (409 until it is ready). */
    async chunks(kbId: string, documentId: string, page = 0, size = 20): Promise<ChunkPage> {
      return unwrap(await api.GET('/v1/knowledge-bases/{kbId}/documents/{documentId}/chunks', { params: { path: { kbId, documentId }, query: { page, size } } }));
    },
    /** A page of every chunk of the knowledge base; page on with `after` = `nextCursor` until it is null. */
    listChunks,
    /**
     * One page of change-feed events after `after` (from the oldest kept when
     * left out); a cursor older than the feed keeps throws a `KbApiError` with
     * status 410. {@link followChanges} does the paging, the 410 and the end.
     */
    changes,
    /**
     * The knowledge base's changes as an async iterator of pages: every chunk
     * first when no cursor is given, then the feed, reloading on a 410 and
     * ending after `knowledge_base.deleted` (see `FeedPage`).
     */
    followChanges(kbId: string, follow: FollowOptions = {}) {
      return followChanges({ changes: (after, size) => changes(kbId, after, size), listChunks: (after, size) => listChunks(kbId, after, size) }, follow);
    },
    /** The knowledge base's chunks best first for `query` (BM25, with highlights). */
    async search(kbId: string, request: SearchRequest): Promise<SearchResult> {
      return unwrap(await api.POST('/v1/knowledge-bases/{kbId}/search', { params: { path: { kbId } }, body: request }));
    },
    /** Polls with backoff until no source is pending or processing. */
    waitUntilSettled(kbId: string, settle: SettleOptions = {}): Promise<KnowledgeBase> {
      return waitUntilSettled(() => getKnowledgeBase(kbId), settle);
    },
  };
}

export type KbClient = ReturnType<typeof createKbClient>;
