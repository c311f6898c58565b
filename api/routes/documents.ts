import { createRoute } from '@hono/zod-openapi';
import { getChunks, listSources, readSource, rerunSource, type KbDeps } from '../../shared/verbs/knowledge-bases.js';
import { pageQuerySchema, toPage } from '../../shared/schemas/common.js';
import { chunkPageSchema } from '../../shared/schemas/chunk.js';
import {
  documentQuerySchema,
  documentSchema,
  markdownDocumentSchema,
  sourceListQuerySchema,
  sourcePageSchema,
  sourceSchema,
} from '../../shared/schemas/knowledge-base.js';
import type { AppDeps } from '../deps.js';
import { createRouter, emptyResponse, errorResponses, jsonResponse, security, TAGS } from '../openapi/router.js';
import { docParams, ifMatchHeaders, ifMatchRevision, kbParams } from './kb-requests.js';

/** The sources (documents) of a knowledge base: read one or a page, its chunks, delete, retry, refresh. */
export function documentRoutes(deps: AppDeps, kb: KbDeps) {
  const { store } = deps;
  const app = createRouter();

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
      const ifRev = await ifMatchRevision(kb, c.req.header('if-match'), workspaceId, kbId);
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
