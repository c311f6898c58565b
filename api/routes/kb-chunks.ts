import { createRoute, z } from '@hono/zod-openapi';
import { idSchema, pageQuerySchema } from '../../shared/schemas/common.js';
import { chunkSchema } from '../../shared/schemas/chunk.js';
import { listKbChunks } from '../../shared/verbs/chunk-listing.js';
import type { AppDeps } from '../deps.js';
import type { KbDeps } from '../../shared/verbs/knowledge-bases.js';
import { createRouter, errorResponses, jsonResponse, security, TAGS } from '../openapi/router.js';

/** Largest page of the knowledge-base-wide chunk listing (the `size` rule of every list). */
export const MAX_CHUNK_LISTING_SIZE = 100;

const listingQuery = z.object({
  after: z.string().max(1024).optional().meta({ description: 'The `nextCursor` of the previous page; left out, the listing starts at the beginning' }),
  size: pageQuerySchema.shape.size,
});

const chunkListingSchema = z
  .object({
    data: z.array(chunkSchema),
    nextCursor: z.string().nullable().meta({ description: 'Pass as `after` for the next page; null when the listing is complete' }),
    changesCursor: z.string().meta({
      description: 'The change feed position from before this listing began: once every page is read, follow GET …/changes?after=<changesCursor> to stay in sync',
    }),
  })
  .meta({ id: 'ChunkListing' });

/** GET of every chunk of a knowledge base, cursor paged: what a consumer loads a vector store from. */
export function kbChunkRoutes(deps: AppDeps, kb: KbDeps) {
  const app = createRouter();
  app.openapi(
    createRoute({
      method: 'get',
      path: '/knowledge-bases/{kbId}/chunks',
      operationId: 'listKnowledgeBaseChunks',
      tags: [TAGS.knowledgeBases],
      summary: 'All chunks of a knowledge base',
      description:
        'Every chunk of the ready sources, in source order and chunk order, each with its stable `id`, its source fields and metadata. Page on with `after=<nextCursor>` until `nextCursor` is null; sources added or deleted between pages do not make it skip or repeat the others.',
      security,
      request: { params: z.object({ kbId: idSchema }), query: listingQuery },
      responses: { 200: jsonResponse(chunkListingSchema, 'A page of chunks and the cursor to go on from'), ...errorResponses(400, 401, 403, 404, 500, 503) },
    }),
    async (c) => {
      const { after, size = MAX_CHUNK_LISTING_SIZE } = c.req.valid('query');
      return c.json(await listKbChunks(kb, deps.store.changes, c.get('principal').workspaceId, c.req.valid('param').kbId, after, size), 200);
    },
  );
  return app;
}
