import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ValidationError } from '../../shared/errors.js';
import { newKbId } from '../../shared/ids.js';
import {
  assertOwned,
  createKnowledgeBase,
  readKnowledgeBaseJson,
  summaryView,
  updateKnowledgeBase,
  type KbDeps,
} from '../../shared/verbs/knowledge-bases.js';
import { QuotaGuard, intakeOf, underHold } from '../../shared/quotas.js';
import { pageQuerySchema, toPage } from '../../shared/schemas/common.js';
import {
  knowledgeBaseCreateFormSchema,
  knowledgeBaseCreateJsonSchema,
  knowledgeBaseUpdateFormSchema,
  knowledgeBaseUpdateJsonSchema,
} from '../../shared/schemas/source-form.js';
import { knowledgeBasePageSchema, knowledgeBaseSchema } from '../../shared/schemas/knowledge-base.js';
import type { AppEnv } from '../context.js';
import type { AppDeps } from '../deps.js';
import { zodFieldErrors } from '../middleware/errors.js';
import { etagOf, notModified, requiredRevision } from '../middleware/etag.js';
import { createFormReader } from '../http/form-reader.js';
import { idempotent } from '../middleware/idempotency.js';
import { createRouter, emptyResponse, errorResponses, jsonResponse, security, TAGS } from '../openapi/router.js';
import { formOrJsonBody, idempotencyHeaders, ifMatchHeaders, ifMatchRevision, kbParams } from './kb-requests.js';
import { piecesStream, type JsonPieces } from '../../shared/verbs/json-pieces.js';

/** The headers of a JSON answer in pieces: its type and its length, known before the first piece is sent. */
const jsonHeaders = (body: JsonPieces, more: Record<string, string> = {}): Record<string, string> => ({
  'Content-Type': 'application/json',
  'Content-Length': String(body.bytes),
  ...more,
});

/** The knowledge bases themselves: list, create, read, change (add sources, rename), delete. */
export function knowledgeBaseRoutes(deps: AppDeps, kb: KbDeps) {
  const { store } = deps;
  const app = createRouter();
  const form = createFormReader(deps);
  const quota = new QuotaGuard(deps.config, store.quotas);
  const idempotency = {
    store: store.idempotency,
    limits: { maxKeysPerWorkspace: deps.config.IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE, maxBodyBytes: deps.config.IDEMPOTENCY_MAX_BODY_BYTES },
  };
  /** A replay whose body was too large to keep: the knowledge base as it is now. */
  const renderFor = (c: Context<AppEnv>) => async (kbId: string, status: number) => {
    const { body, rev } = await readKnowledgeBaseJson(kb, c.get('principal').workspaceId, kbId);
    return c.body(piecesStream(body), status as 200, jsonHeaders(body, { ETag: etagOf(rev) }));
  };

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
      return c.json(toPage(items.map((m) => summaryView(m, kb.chunkDefaults)), page, size, total), 200);
    },
  );

  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/knowledge-bases',
    operationId: 'createKnowledgeBase',
    tags: [TAGS.knowledgeBases],
    summary: 'Create a knowledge base',
    description:
      'Creates a knowledge base named `knowledge_base_name` with optional first sources. Each source starts `pending` and is extracted by a worker. The body is a multipart form (the default, and the only way to send files) or the same fields as a JSON object, the arrays as JSON arrays and the settings as numbers.',
    security,
    request: { headers: idempotencyHeaders, body: formOrJsonBody(knowledgeBaseCreateFormSchema, knowledgeBaseCreateJsonSchema) },
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
        const { body, rev } = await form.read(c, { kbId, requireName: true, tap, beforeStaging }, async (f) => {
          await quota.assertRoomForSources(ws, 0, f.sources.length);
          // Checked and reserved in one step; the knowledge-base count and the sources per knowledge base are checked by the commit.
          const hold = await quota.reserveIntake(ws, intakeOf(f.sources));
          const limits = await quota.commitLimits(ws);
          return underHold(hold, () => createKnowledgeBase(kb, ws, kbId, { ...f, name: f.name! }, limits));
        });
        return c.body(piecesStream(body), 201, jsonHeaders(body, { Location: `/v1/knowledge-bases/${kbId}`, ETag: etagOf(rev) }));
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
      return c.body(piecesStream(body), 200, jsonHeaders(body));
    },
  );

  app.openAPIRegistry.registerPath({
    method: 'patch',
    path: '/knowledge-bases/{kbId}',
    operationId: 'updateKnowledgeBase',
    tags: [TAGS.knowledgeBases],
    summary: 'Update knowledge base',
    description:
      'Adds sources and/or renames, all or nothing: after a 400, 413 or 415 the knowledge base is exactly as it was. With `If-Match: <ETag>` it changes the knowledge base only at that revision (412 otherwise). The body is a multipart form (the default, and the only way to send files) or the same fields as a JSON object.',
    security,
    request: {
      params: kbParams,
      headers: idempotencyHeaders.extend(ifMatchHeaders.shape),
      body: formOrJsonBody(knowledgeBaseUpdateFormSchema, knowledgeBaseUpdateJsonSchema),
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
        const { body, rev } = await form.read(c, { kbId, requireName: false, tap, beforeStaging }, async (f) => {
          await quota.assertRoomForSources(ws, existing, f.sources.length);
          const hold = await quota.reserveIntake(ws, intakeOf(f.sources));
          const limits = await quota.commitLimits(ws);
          return underHold(hold, () => updateKnowledgeBase(kb, ws, kbId, f, ifRev, limits));
        });
        return c.body(piecesStream(body), 200, jsonHeaders(body, { ETag: etagOf(rev) }));
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
      const ifRev = await ifMatchRevision(kb, c.req.header('if-match'), workspaceId, kbId);
      await store.kbs.delete(workspaceId, kbId, ifRev);
      await deps.queue.scheduleRefresh({ workspaceId, kbId }, 0);
      return c.body(null, 204);
    },
  );

  return app;
}
