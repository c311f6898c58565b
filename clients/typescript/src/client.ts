import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';
import { waitUntilSettled, type KnowledgeBase, type SettleOptions } from './settle.js';
import { sourceForm, type SourceFormInput } from './source-form.js';

export type ErrorBody = components['schemas']['ErrorBody'];
export type Source = components['schemas']['Source'];
export type ChunkPage = components['schemas']['ChunkPage'];
export type ChunkListing = components['schemas']['ChunkListing'];
export type ChangesPage = components['schemas']['ChangesPage'];
export type ChangeEvent = components['schemas']['ChangeEvent'];

/** An error answer of the API, with its status and the contract's error body. */
export class KbApiError extends Error {
  override name = 'KbApiError';
  constructor(
    readonly status: number,
    readonly body: ErrorBody | undefined,
    readonly headers: Headers,
  ) {
    super(`${status} ${body?.error ?? ''}: ${body?.message ?? 'no error body'}${body?.validationErrors ? ` ${JSON.stringify(body.validationErrors)}` : ''}`);
  }
}

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

/** Unwraps an openapi-fetch result: the data, or a {@link KbApiError}. */
function ok<T>(r: { data?: T; error?: unknown; response: Response }): T {
  if (r.response.ok && r.data !== undefined) return r.data;
  throw new KbApiError(r.response.status, r.error as ErrorBody | undefined, r.response.headers);
}

const asForm = { bodySerializer: (body: unknown) => body as FormData };

/**
 * A typed client of the kb-ingest API. `api` is the generated openapi-fetch
 * client for every route; the methods here are the common tasks, with the
 * multipart form built for you and errors thrown as {@link KbApiError}.
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
  const getKnowledgeBase = async (kbId: string): Promise<KnowledgeBase> =>
    ok(await api.GET('/v1/knowledge-bases/{kbId}', { params: { path: { kbId } } }));

  return {
    api,
    /** Creates a knowledge base named `input.name` with its first sources. */
    async createKnowledgeBase(input: SourceFormInput & { name: string }, w: WriteOptions = {}): Promise<KnowledgeBase> {
      return ok(await api.POST('/v1/knowledge-bases', { body: sourceForm(input) as never, params: { header: writeHeaders(w) }, ...asForm }));
    },
    /** Adds sources (and/or renames), all or nothing. */
    async addSources(kbId: string, input: SourceFormInput, w: WriteOptions = {}): Promise<KnowledgeBase> {
      return ok(
        await api.PATCH('/v1/knowledge-bases/{kbId}', { params: { path: { kbId }, header: writeHeaders(w) }, body: sourceForm(input) as never, ...asForm }),
      );
    },
    getKnowledgeBase,
    /** Every knowledge base of the key's workspace, one page at a time. */
    async listKnowledgeBases(page = 0, size = 20) {
      return ok(await api.GET('/v1/knowledge-bases', { params: { query: { page, size } } }));
    },
    /** A page of a ready document's chunks (409 until it is ready). */
    async chunks(kbId: string, documentId: string, page = 0, size = 20): Promise<ChunkPage> {
      return ok(await api.GET('/v1/knowledge-bases/{kbId}/documents/{documentId}/chunks', { params: { path: { kbId, documentId }, query: { page, size } } }));
    },
    /** A page of every chunk of the knowledge base; page on with `after` = `nextCursor` until it is null. */
    async listChunks(kbId: string, after?: string, size = 100): Promise<ChunkListing> {
      return ok(await api.GET('/v1/knowledge-bases/{kbId}/chunks', { params: { path: { kbId }, query: { size, ...(after ? { after } : {}) } } }));
    },
    /**
     * Change-feed events after `after` (from the oldest kept when left out).
     * A cursor older than the feed keeps throws a {@link KbApiError} with
     * status 410: read the chunks again with {@link listChunks} and follow
     * on from its `changesCursor`.
     */
    async changes(kbId: string, after?: string, size = 100): Promise<ChangesPage> {
      return ok(await api.GET('/v1/knowledge-bases/{kbId}/changes', { params: { path: { kbId }, query: { size, ...(after ? { after } : {}) } } }));
    },
    /** Polls with backoff until no source is pending or processing. */
    waitUntilSettled(kbId: string, settle: SettleOptions = {}): Promise<KnowledgeBase> {
      return waitUntilSettled(() => getKnowledgeBase(kbId), settle);
    },
  };
}

export type KbClient = ReturnType<typeof createKbClient>;
