import { createRoute, z } from '@hono/zod-openapi';
import { notFound } from '../../shared/errors.js';
import { idSchema } from '../../shared/schemas/common.js';
import { sourceSchema } from '../../shared/schemas/knowledge-base.js';
import { documentPatchSchema } from '../../shared/schemas/metadata.js';
import { publicSource } from '../../shared/store/kb-records.js';
import type { AppDeps } from '../deps.js';
import { jsonBodyGuards } from '../http/json-body.js';
import { createRouter, errorResponses, jsonResponse, security, TAGS } from '../openapi/router.js';

const docParams = z.object({ kbId: idSchema, documentId: idSchema });
const PATH = '/knowledge-bases/:kbId/documents/:documentId';
/** Metadata is at most 4 KB as JSON; a body four times that leaves room for whitespace and escapes. */
const MAX_BODY_BYTES = 16 * 1024;

/** PATCH of one document: its metadata, as JSON. */
export function documentMetadataRoutes(deps: AppDeps) {
  const { store } = deps;
  const app = createRouter();

  const [bodyLimit, jsonOnly] = jsonBodyGuards(MAX_BODY_BYTES);
  app.patch(PATH, bodyLimit, jsonOnly);

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/knowledge-bases/{kbId}/documents/{documentId}',
      operationId: 'setDocumentMetadata',
      tags: [TAGS.documents],
      summary: "Set a document's metadata",
      description:
        'Replaces the metadata of one source (`{}` removes it): a flat JSON object of string, number and boolean values, at most 32 keys and 4 KB. It is returned with the source and with each of its chunks, and search can filter on it.',
      security,
      request: { params: docParams, body: { content: { 'application/json': { schema: documentPatchSchema } }, required: true } },
      responses: { 200: jsonResponse(sourceSchema, 'The source with its new metadata'), ...errorResponses(400, 401, 403, 404, 413, 500, 503) },
    }),
    async (c) => {
      const { kbId, documentId } = c.req.valid('param');
      const { metadata } = c.req.valid('json');
      const target = { workspaceId: c.get('principal').workspaceId, kbId, documentId };
      await store.kbs.setMetadata(target, metadata, new Date().toISOString());
      const source = await store.kbs.getSource(kbId, documentId);
      if (!source) throw notFound('Document', documentId, `knowledge base ${kbId}`);
      return c.json(publicSource(source), 200);
    },
  );
  return app;
}
