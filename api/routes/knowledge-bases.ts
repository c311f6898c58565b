import { Readable } from 'node:stream';
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { UnsupportedMediaTypeError, ValidationError } from '../../shared/errors.js';
import { newKbId } from '../../shared/ids.js';
import {
  assertOwned,
  createKnowledgeBase,
  getChunks,
  listDocuments,
  getDocument,
  readKnowledgeBase,
  retryDocument,
  summaryView,
  updateKnowledgeBase,
  type KbDeps,
} from '../knowledge-base-verbs.js';
import { idSchema, pageQuerySchema, toPage } from '../../shared/schemas/common.js';
import { chunkPageSchema } from '../../shared/schemas/chunk.js';
import { knowledgeBaseCreateFormSchema, knowledgeBaseUpdateFormSchema } from '../../shared/schemas/source-form.js';
import {
  documentQuerySchema,
  documentSchema,
  markdownDocumentSchema,
  knowledgeBasePageSchema,
  knowledgeBaseSchema,
  sourceListQuerySchema,
  sourcePageSchema,
  sourceSchema,
} from '../../shared/schemas/knowledge-base.js';
import type { Stage } from '../../shared/store/stage-store.js';
import type { AppEnv } from '../context.js';
import type { AppDeps } from '../deps.js';
import { zodFieldErrors } from '../errors.js';
import { etagOf, notModified, requiredRevision } from '../etag.js';
import { parseMultipart, type FormLimits } from '../multipart.js';
import { UploadGate } from '../upload-gate.js';
import { createRouter, errorResponses, jsonResponse, security } from '../router.js';
import { readSourceForm, type SourceForm } from '../source-form.js';

const kbParams = z.object({ kbId: idSchema });
const docParams = z.object({ kbId: idSchema, documentId: idSchema });
const formBody = (schema: z.ZodType) => ({ content: { 'multipart/form-data': { schema } }, required: true });
export function knowledgeBaseRoutes(deps: AppDeps) {
  const { config, store } = deps;
  const kb: KbDeps = { kbs: store.kbs, queue: deps.queue, logger: deps.logger };
  const app = createRouter();
  const gate = new UploadGate(deps.redis, {
    maxUploads: config.MAX_UPLOAD_CONCURRENCY,
    maxUploadsPerKey: config.MAX_UPLOADS_PER_KEY,
    redisHighWaterPercent: config.REDIS_UPLOAD_HIGH_WATER_PERCENT,
  });
  const limits: FormLimits = {
    maxFileBytes: config.MAX_FILE_BYTES,
    maxFiles: config.MAX_SOURCES_PER_REQUEST,
    maxRequestBytes: config.MAX_REQUEST_BYTES,
    minBytesPerSecond: config.UPLOAD_MIN_BYTES_PER_SECOND,
    rateWindowMs: config.UPLOAD_MIN_RATE_WINDOW_SECONDS * 1000,
  };

  /**
   * Streams and validates the form of a POST or PATCH into staged sources,
   * then runs `commit` with them; staged bytes are discarded when either fails.
   */
  async function withForm<T>(c: Context<AppEnv>, kbId: string, requireName: boolean, commit: (form: SourceForm) => Promise<T>): Promise<T> {
    const type = c.req.header('content-type') ?? '';
    if (!/^multipart\/form-data\b/i.test(type)) {
      throw new UnsupportedMediaTypeError('The request body must be multipart/form-data');
    }
    const body = c.env?.incoming ?? Readable.fromWeb((c.req.raw.body ?? new Blob([]).stream()) as never);
    let release: (() => void) | undefined;
    let stages: Stage[] = [];
    try {
      const raw = await parseMultipart(body, { 'content-type': type }, limits, {
        openStage: () => store.stages.open(kbId),
        beforeFirstFile: async () => void (release = await gate.admit(c.get('principal').keyId)),
      });
      stages = raw.files.map((f) => f.stage);
      return await commit(readSourceForm(raw, config.MAX_SOURCES_PER_REQUEST, requireName));
    } catch (err) {
      await store.stages.discard(stages);
      // The rest of a refused body is not worth reading: close the connection once answered.
      if (c.env?.incoming && !c.env.incoming.complete) c.env.outgoing?.setHeader('Connection', 'close');
      throw err;
    } finally {
      release?.();
    }
  }

  app.openapi(
    createRoute({
      method: 'get',
      path: '/knowledge-bases',
      summary: 'List knowledge bases',
      description: "A page of the key's workspace's knowledge bases, newest first, without their sources.",
      security,
      request: { query: pageQuerySchema },
      responses: { 200: jsonResponse(knowledgeBasePageSchema, 'A page of knowledge bases'), ...errorResponses(400, 401, 403, 500, 503) },
    }),
    async (c) => {
      const { page = 0, size = 20 } = c.req.valid('query');
      const { items, total } = await store.kbs.list(c.get('principal').workspaceId, page, size);
      return c.json(toPage(items.map(summaryView), page, size, total), 200);
    },
  );

  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/knowledge-bases',
    summary: 'Create a knowledge base',
    description:
      'Creates a knowledge base named `knowledge_base_name` with optional first sources. Each source starts `pending` and is extracted by a worker.',
    security,
    request: { body: formBody(knowledgeBaseCreateFormSchema) },
    responses: { 201: jsonResponse(knowledgeBaseSchema, 'The created knowledge base'), ...errorResponses(400, 401, 403, 408, 413, 415, 500, 503) },
  });
  app.post('/knowledge-bases', async (c) => {
    const ws = c.get('principal').workspaceId;
    const kbId = newKbId();
    const { view, rev } = await withForm(c, kbId, true, (form) => createKnowledgeBase(kb, ws, kbId, form.name!, form.sources));
    return c.json(view, 201, { Location: `/v1/knowledge-bases/${kbId}`, ETag: etagOf(rev) });
  });

  app.openapi(
    createRoute({
      method: 'get',
      path: '/knowledge-bases/{kbId}',
      summary: 'Get knowledge base',
      description:
        'The knowledge base with its sources. The `ETag` names its revision: send it back in `If-Match` on PATCH to change it only if nothing changed meanwhile, or in `If-None-Match` here to get 304 while nothing did.',
      security,
      request: { params: kbParams },
      responses: {
        200: jsonResponse(knowledgeBaseSchema, 'The knowledge base with its sources'),
        304: { description: 'Not modified since the ETag in If-None-Match' },
        ...errorResponses(400, 401, 403, 404, 500, 503),
      },
    }),
    async (c) => {
      const { view, rev } = await readKnowledgeBase(kb, c.get('principal').workspaceId, c.req.valid('param').kbId);
      c.header('ETag', etagOf(rev));
      if (notModified(c.req.header('if-none-match'), rev)) return c.body(null, 304);
      return c.json(view, 200);
    },
  );

  app.openAPIRegistry.registerPath({
    method: 'patch',
    path: '/knowledge-bases/{kbId}',
    summary: 'Update knowledge base',
    description:
      'Adds sources and/or renames, all or nothing: after a 400, 413 or 415 the knowledge base is exactly as it was. With `If-Match: <ETag>` it changes the knowledge base only at that revision (412 otherwise).',
    security,
    request: {
      params: kbParams,
      headers: z.object({ 'if-match': z.string().optional().meta({ description: 'An ETag from GET; 412 when the knowledge base has changed since' }) }),
      body: formBody(knowledgeBaseUpdateFormSchema),
    },
    responses: { 200: jsonResponse(knowledgeBaseSchema, 'The updated knowledge base'), ...errorResponses(400, 401, 403, 404, 408, 412, 413, 415, 500, 503) },
  });
  app.patch('/knowledge-bases/:kbId', async (c) => {
    const params = kbParams.safeParse(c.req.param());
    if (!params.success) throw new ValidationError(zodFieldErrors(params.error));
    const { kbId } = params.data;
    const ws = c.get('principal').workspaceId;
    const meta = await assertOwned(kb, ws, kbId);
    // Checked before the body is read, so a stale upload fails at once; the commit checks again atomically.
    const ifRev = requiredRevision(c.req.header('if-match'), meta.rev);
    const { view, rev } = await withForm(c, kbId, false, (form) => updateKnowledgeBase(kb, ws, kbId, form.name, form.sources, ifRev));
    return c.json(view, 200, { ETag: etagOf(rev) });
  });

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/knowledge-bases/{kbId}',
      summary: 'Delete knowledge base',
      description: 'Permanently deletes the knowledge base, its sources, texts and staged files. A second DELETE gives 404.',
      security,
      request: { params: kbParams },
      responses: { 204: { description: 'Deleted' }, ...errorResponses(400, 401, 403, 404, 500, 503) },
    }),
    async (c) => {
      await store.kbs.delete(c.get('principal').workspaceId, c.req.valid('param').kbId);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/knowledge-bases/{kbId}/documents/{documentId}',
      summary: 'Get one document',
      description:
        'One source with its extracted `text` (null until the source is ready). With `format=markdown` it also carries `markdown`, the structured extraction (headings, lists, tables) that `text` is derived from.',
      security,
      request: { params: docParams, query: documentQuerySchema },
      responses: {
        200: jsonResponse(documentSchema.or(markdownDocumentSchema), 'The source and its text (and Markdown with format=markdown)'),
        ...errorResponses(400, 401, 403, 404, 500, 503),
      },
    }),
    async (c) => {
      const { kbId, documentId } = c.req.valid('param');
      const { format = 'text' } = c.req.valid('query');
      return c.json(await getDocument(kb, c.get('principal').workspaceId, kbId, documentId, format), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/knowledge-bases/{kbId}/documents',
      summary: "A page of a knowledge base's sources",
      description: 'Sources in order, without their text, optionally only those with one `status`; for knowledge bases with many sources.',
      security,
      request: { params: kbParams, query: pageQuerySchema.extend(sourceListQuerySchema.shape) },
      responses: { 200: jsonResponse(sourcePageSchema, 'A page of sources'), ...errorResponses(400, 401, 403, 404, 500, 503) },
    }),
    async (c) => {
      const { page = 0, size = 20, status } = c.req.valid('query');
      const { items, total } = await listDocuments(kb, c.get('principal').workspaceId, c.req.valid('param').kbId, page, size, status);
      return c.json(toPage(items, page, size, total), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/knowledge-bases/{kbId}/documents/{documentId}/chunks',
      summary: "A page of a document's chunks",
      description:
        'The Markdown of a ready source split for retrieval: at headings first, then paragraphs, then sentences, each chunk at most CHUNK_MAX_TOKENS cl100k_base tokens, with its heading path and (PDF) pages. 409 while the source is not ready.',
      security,
      request: { params: docParams, query: pageQuerySchema },
      responses: { 200: jsonResponse(chunkPageSchema, 'A page of chunks'), ...errorResponses(400, 401, 403, 404, 409, 500, 503) },
    }),
    async (c) => {
      const { kbId, documentId } = c.req.valid('param');
      const { page = 0, size = 20 } = c.req.valid('query');
      const { items, total } = await getChunks(kb, c.get('principal').workspaceId, kbId, documentId, page, size);
      return c.json(toPage(items, page, size, total), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/knowledge-bases/{kbId}/documents/{documentId}',
      summary: 'Delete one document',
      security,
      request: { params: docParams },
      responses: { 204: { description: 'Deleted' }, ...errorResponses(400, 401, 403, 404, 500, 503) },
    }),
    async (c) => {
      const { kbId, documentId } = c.req.valid('param');
      await store.kbs.deleteSource(c.get('principal').workspaceId, kbId, documentId, new Date().toISOString());
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/knowledge-bases/{kbId}/documents/{documentId}/retry',
      summary: 'Retry a failed source',
      description: 'Puts a `failed` source back to `pending` and enqueues it; 409 when it is not failed.',
      security,
      request: { params: docParams },
      responses: { 202: jsonResponse(sourceSchema, 'The source, pending again'), ...errorResponses(400, 401, 403, 404, 409, 500, 503) },
    }),
    async (c) => {
      const { kbId, documentId } = c.req.valid('param');
      return c.json(await retryDocument(kb, c.get('principal').workspaceId, kbId, documentId), 202);
    },
  );

  return app;
}
