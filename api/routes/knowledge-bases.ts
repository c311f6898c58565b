import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ValidationError } from '../../shared/errors.js';
import { newKbId } from '../../shared/ids.js';
import {
  assertOwned,
  createKnowledgeBase,
  getChunks,
  listSources,
  readSource,
  readKnowledgeBase,
  readKnowledgeBaseJson,
  rerunSource,
  summaryView,
  updateKnowledgeBase,
  type KbDeps,
} from '../knowledge-base-verbs.js';
import { QuotaGuard, intakeOf, underHold } from '../../shared/quotas.js';
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
import type { AppEnv } from '../context.js';
import type { AppDeps } from '../deps.js';
import { kbChangeRoutes } from './kb-changes.js';
import { kbSearchRoutes } from './kb-search.js';
import { kbChunkRoutes } from './kb-chunks.js';
import { zodFieldErrors } from '../middleware/errors.js';
import { etagOf, notModified, requiredRevision } from '../middleware/etag.js';
import { createFormReader } from '../http/form-reader.js';
import { idempotent } from '../middleware/idempotency.js';
import { KbViewCache } from '../kb-view-cache.js';
import { createRouter, emptyResponse, errorResponses, jsonResponse, security, TAGS } from '../openapi/router.js';

const kbParams = z.object({ kbId: idSchema });
const docParams = z.object({ kbId: idSchema, documentId: idSchema });
const formBody = (schema: z.ZodType) => ({ content: { 'multipart/form-data': { schema } }, required: true });
const idempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .optional()
    .meta({
      description:
        '1 to 255 printable characters; a repeat within 24 h gets the first answer again (Idempotent-Replayed: true). A success larger than IDEMPOTENCY_MAX_BODY_BYTES is replayed as the knowledge base is now; a workspace holding IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE live keys gets 429 for a new one',
    }),
});
const ifMatchHeaders = z.object({
  'if-match': z
    .string()
    .optional()
    .meta({ description: 'An ETag from GET (strong comparison: a W/ tag never matches); 412 with the current ETag when the knowledge base has changed since' }),
});

export function knowledgeBaseRoutes(deps: AppDeps) {
  const { store } = deps;
  const chunkDefaults = { maxTokens: deps.config.CHUNK_MAX_TOKENS, overlapTokens: deps.config.CHUNK_OVERLAP_TOKENS };
  const kb: KbDeps = {
    kbs: store.kbs,
    sites: store.sites,
    queue: deps.queue,
    logger: deps.logger,
    chunkDefaults,
    refreshCooldownMs: deps.config.REFRESH_COOLDOWN_SECONDS * 1000,
    views: new KbViewCache(deps.config.KB_VIEW_CACHE_MB * 1024 * 1024),
  };
  const app = createRouter();
  const form = createFormReader(deps);
  const quota = new QuotaGuard(deps.config, store.quotas);
  const idempotency = {
    store: store.idempotency,
    limits: { maxKeysPerWorkspace: deps.config.IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE, maxBodyBytes: deps.config.IDEMPOTENCY_MAX_BODY_BYTES },
  };
  /** A replay whose body was too large to keep: the knowledge base as it is now. */
  const renderFor = (c: Context<AppEnv>) => async (kbId: string, status: number) => {
    const { view, rev } = await readKnowledgeBase(kb, c.get('principal').workspaceId, kbId);
    return c.json(view, status as 200, { ETag: etagOf(rev) });
  };
  /** The revision an If-Match requires (the delete script checks it again atomically); nothing is read without one. */
  const ifMatchRevision = async (header: string | undefined, ws: string, kbId: string) =>
    header === undefined ? undefined : requiredRevision(header, (await assertOwned(kb, ws, kbId)).rev);
  app.route('/', kbChunkRoutes(deps, kb));
  app.route('/', kbChangeRoutes(deps));
  app.route('/', kbSearchRoutes(deps, kb));

  app.openapi(
    createRoute({
      method: 'get',
      path: '/knowledge-bases',
      operationId: 'listKnowledgeBases',
      tags: [TAGS.knowledgeBases],
      summary: 'List knowledge bases',
      description: "A page of the key's workspace's knowledge bases, newest first, without their sources.",
      security,
      request: { query: pageQuerySchema },
      responses: { 200: jsonResponse(knowledgeBasePageSchema, 'A page of knowledge bases'), ...errorResponses(400, 401, 403, 500, 503) },
    }),
    async (c) => {
      const { page = 0, size = 20 } = c.req.valid('query');
      const { items, total } = await store.kbs.list(c.get('principal').workspaceId, page, size);
      return c.json(toPage(items.map((m) => summaryView(m, chunkDefaults)), page, size, total), 200);
    },
  );

  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/knowledge-bases',
    operationId: 'createKnowledgeBase',
    tags: [TAGS.knowledgeBases],
    summary: 'Create a knowledge base',
    description:
      'Creates a knowledge base named `knowledge_base_name` with optional first sources. Each source starts `pending` and is extracted by a worker.',
    security,
    request: { headers: idempotencyHeaders, body: formBody(knowledgeBaseCreateFormSchema) },
    responses: {
      201: jsonResponse(knowledgeBaseSchema, 'The created knowledge base', ['ETag', 'Location', 'Idempotent-Replayed']),
      ...errorResponses(400, 401, 403, 408, 409, 413, 415, 422, 429, 500, 503),
    },
  });
  app.post('/knowledge-bases', async (c) => {
    const ws = c.get('principal').workspaceId;
    return idempotent(c, {
      ...idempotency,
      render: renderFor(c),
      readBody: (tap) => form.observe(c, tap),
      run: async (tap) => {
        const kbId = newKbId();
        await quota.assertRoomForKnowledgeBase(ws);
        // A workspace with no bytes or in-flight room left is refused before its first file is staged.
        const beforeStaging = () => quota.assertRoomForIntake(ws, { bytes: 1, sources: 1 });
        const { view, rev } = await form.read(c, { kbId, requireName: true, tap, beforeStaging }, async (f) => {
          await quota.assertRoomForSources(ws, 0, f.sources.length);
          // Checked and reserved in one step; the knowledge-base count and the sources per knowledge base are checked by the commit.
          const hold = await quota.reserveIntake(ws, intakeOf(f.sources));
          const limits = await quota.commitLimits(ws);
          return underHold(hold, () => createKnowledgeBase(kb, ws, kbId, { ...f, name: f.name! }, limits));
        });
        return c.json(view, 201, { Location: `/v1/knowledge-bases/${kbId}`, ETag: etagOf(rev) });
      },
    });
  });

  app.openapi(
    createRoute({
      method: 'get',
      path: '/knowledge-bases/{kbId}',
      operationId: 'getKnowledgeBase',
      tags: [TAGS.knowledgeBases],
      summary: 'Get knowledge base',
      description:
        'The knowledge base with its sources. The `ETag` names its revision: send it back in `If-Match` on PATCH to change it only if nothing changed meanwhile, or in `If-None-Match` here to get 304 while nothing did.',
      security,
      request: {
        params: kbParams,
        headers: z.object({
          'if-none-match': z.string().optional().meta({ description: 'ETags from earlier GETs (weak comparison); 304 while one is current' }),
        }),
      },
      responses: {
        200: jsonResponse(knowledgeBaseSchema, 'The knowledge base with its sources', ['ETag']),
        304: emptyResponse('Not modified since the ETag in If-None-Match', ['ETag']),
        ...errorResponses(400, 401, 403, 404, 500, 503),
      },
    }),
    async (c) => {
      const { body, rev } = await readKnowledgeBaseJson(kb, c.get('principal').workspaceId, c.req.valid('param').kbId);
      c.header('ETag', etagOf(rev));
      if (notModified(c.req.header('if-none-match'), rev)) return c.body(null, 304);
      return c.body(body, 200, { 'Content-Type': 'application/json' });
    },
  );

  app.openAPIRegistry.registerPath({
    method: 'patch',
    path: '/knowledge-bases/{kbId}',
    operationId: 'updateKnowledgeBase',
    tags: [TAGS.knowledgeBases],
    summary: 'Update knowledge base',
    description:
      'Adds sources and/or renames, all or nothing: after a 400, 413 or 415 the knowledge base is exactly as it was. With `If-Match: <ETag>` it changes the knowledge base only at that revision (412 otherwise).',
    security,
    request: {
      params: kbParams,
      headers: idempotencyHeaders.extend(ifMatchHeaders.shape),
      body: formBody(knowledgeBaseUpdateFormSchema),
    },
    responses: {
      200: jsonResponse(knowledgeBaseSchema, 'The updated knowledge base', ['ETag', 'Idempotent-Replayed']),
      ...errorResponses(400, 401, 403, 404, 408, 409, 412, 413, 415, 422, 429, 500, 503),
    },
  });
  app.patch('/knowledge-bases/:kbId', async (c) => {
    const params = kbParams.safeParse(c.req.param());
    if (!params.success) throw new ValidationError(zodFieldErrors(params.error));
    const { kbId } = params.data;
    const ws = c.get('principal').workspaceId;
    return idempotent(c, {
      ...idempotency,
      render: renderFor(c),
      readBody: (tap) => form.observe(c, tap),
      run: async (tap) => {
        const meta = await assertOwned(kb, ws, kbId);
        // Checked before the body is read, so a stale upload fails at once; the commit checks again atomically.
        const ifRev = requiredRevision(c.req.header('if-match'), meta.rev);
        const existing = Object.values(meta.sourceCounts).reduce((a, b) => a + b, 0);
        // A knowledge base already at its quota is refused before a file is staged; the full count follows the parse.
        const beforeStaging = async () => {
          await quota.assertRoomForSources(ws, existing, 1);
          return quota.assertRoomForIntake(ws, { bytes: 1, sources: 1 });
        };
        const { view, rev } = await form.read(c, { kbId, requireName: false, tap, beforeStaging }, async (f) => {
          await quota.assertRoomForSources(ws, existing, f.sources.length);
          const hold = await quota.reserveIntake(ws, intakeOf(f.sources));
          const limits = await quota.commitLimits(ws);
          return underHold(hold, () => updateKnowledgeBase(kb, ws, kbId, f, ifRev, limits));
        });
        return c.json(view, 200, { ETag: etagOf(rev) });
      },
    });
  });

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/knowledge-bases/{kbId}',
      operationId: 'deleteKnowledgeBase',
      tags: [TAGS.knowledgeBases],
      summary: 'Delete knowledge base',
      description:
        'Permanently deletes the knowledge base, its sources, texts and staged files. A second DELETE gives 404. With `If-Match: <ETag>` it deletes only at that revision (412 with the current `ETag` otherwise).',
      security,
      request: { params: kbParams, headers: ifMatchHeaders },
      responses: { 204: emptyResponse('Deleted'), ...errorResponses(400, 401, 403, 404, 412, 500, 503) },
    }),
    async (c) => {
      const { kbId } = c.req.valid('param');
      const workspaceId = c.get('principal').workspaceId;
      const ifRev = await ifMatchRevision(c.req.header('if-match'), workspaceId, kbId);
      await store.kbs.delete(workspaceId, kbId, ifRev);
      await deps.queue.scheduleRefresh({ workspaceId, kbId }, 0);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/knowledge-bases/{kbId}/documents/{documentId}',
      operationId: 'getDocument',
      tags: [TAGS.documents],
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
      return c.json(await readSource(kb, { workspaceId: c.get('principal').workspaceId, kbId, documentId }, format), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/knowledge-bases/{kbId}/documents',
      operationId: 'listDocuments',
      tags: [TAGS.documents],
      summary: "A page of a knowledge base's sources",
      description: 'Sources in order, without their text, optionally only those with one `status`; for knowledge bases with many sources.',
      security,
      request: { params: kbParams, query: pageQuerySchema.extend(sourceListQuerySchema.shape) },
      responses: { 200: jsonResponse(sourcePageSchema, 'A page of sources'), ...errorResponses(400, 401, 403, 404, 500, 503) },
    }),
    async (c) => {
      const { page = 0, size = 20, status } = c.req.valid('query');
      const { items, total } = await listSources(kb, c.get('principal').workspaceId, c.req.valid('param').kbId, page, size, status);
      return c.json(toPage(items, page, size, total), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/knowledge-bases/{kbId}/documents/{documentId}/chunks',
      operationId: 'listChunks',
      tags: [TAGS.documents],
      summary: "A page of a document's chunks",
      description:
        'The Markdown of a ready source split for retrieval: at headings first, then paragraphs, then sentences, each chunk at most chunkMaxTokens cl100k_base tokens (a setting of the knowledge base), with its heading path and (PDF) pages. 409 while the source is not ready.',
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
      operationId: 'deleteDocument',
      tags: [TAGS.documents],
      summary: 'Delete one document',
      description: 'Removes one source and its document. With `If-Match: <ETag>` of the knowledge base, only at that revision (412 with the current `ETag` otherwise).',
      security,
      request: { params: docParams, headers: ifMatchHeaders },
      responses: { 204: emptyResponse('Deleted'), ...errorResponses(400, 401, 403, 404, 412, 500, 503) },
    }),
    async (c) => {
      const { kbId, documentId } = c.req.valid('param');
      const workspaceId = c.get('principal').workspaceId;
      const ifRev = await ifMatchRevision(c.req.header('if-match'), workspaceId, kbId);
      // The delete's script writes its events (the change, and the settle when it removed the last source in flight).
      await store.kbs.deleteSource({ workspaceId, kbId, documentId }, new Date().toISOString(), ifRev);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/knowledge-bases/{kbId}/documents/{documentId}/retry',
      operationId: 'retryDocument',
      tags: [TAGS.documents],
      summary: 'Retry a failed source',
      description: 'Puts a `failed` source back to `pending` and enqueues it; 409 when it is not failed.',
      security,
      request: { params: docParams },
      responses: { 202: jsonResponse(sourceSchema, 'The source, pending again'), ...errorResponses(400, 401, 403, 404, 409, 500, 503) },
    }),
    async (c) => {
      const { kbId, documentId } = c.req.valid('param');
      return c.json(await rerunSource(kb, { workspaceId: c.get('principal').workspaceId, kbId, documentId }, 'retry'), 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/knowledge-bases/{kbId}/documents/{documentId}/refresh',
      operationId: 'refreshDocument',
      tags: [TAGS.documents],
      summary: 'Fetch a URL source again',
      description:
        'Puts a `ready` or `failed` URL source back to `pending` and fetches it again. If the page is byte for byte the same, the source becomes `ready` again with its text as it was and only `checkedAt` moves; if it changed, it is extracted again and `refreshedAt` is set. 409 while pending or processing, 400 for text and file sources. A `ready` source fetched less than REFRESH_COOLDOWN_SECONDS (60) ago answers 429 with `Retry-After` (the seconds left) and stays as it is.',
      security,
      request: { params: docParams },
      responses: { 202: jsonResponse(sourceSchema, 'The source, pending again'), ...errorResponses(400, 401, 403, 404, 409, 429, 500, 503) },
    }),
    async (c) => {
      const { kbId, documentId } = c.req.valid('param');
      return c.json(await rerunSource(kb, { workspaceId: c.get('principal').workspaceId, kbId, documentId }, 'refresh'), 202);
    },
  );

  return app;
}
