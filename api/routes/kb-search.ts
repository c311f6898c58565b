import { createRoute, z } from '@hono/zod-openapi';
import { idSchema } from '../../shared/schemas/common.js';
import { searchRequestSchema, searchResultSchema } from '../../shared/schemas/search.js';
import { searchKb } from '../../shared/search/kb-search.js';
import type { AppDeps } from '../deps.js';
import { jsonBodyGuards } from '../http/json-body.js';
import type { KbDeps } from '../../shared/verbs/knowledge-bases.js';
import { assertOwned } from '../../shared/verbs/knowledge-bases.js';
import { createRouter, errorResponses, jsonResponse, security, TAGS } from '../openapi/router.js';

const PATH = '/knowledge-bases/:kbId/search';
/** A query of 1,000 characters, 100 document ids and 4 KB of metadata fit with room to spare. */
const MAX_BODY_BYTES = 32 * 1024;

/** POST of a search over one knowledge base's chunks (a read: read-only keys may make it). */
export function kbSearchRoutes(deps: AppDeps, kb: KbDeps) {
  const { store } = deps;
  const app = createRouter();
  const [bodyLimit, jsonOnly] = jsonBodyGuards(MAX_BODY_BYTES);
  app.post(PATH, bodyLimit, jsonOnly);

  app.openapi(
    createRoute({
      method: 'post',
      path: '/knowledge-bases/{kbId}/search',
      operationId: 'searchKnowledgeBase',
      tags: [TAGS.knowledgeBases],
      summary: 'Search the chunks of a knowledge base',
      description:
        "Ranks the chunks of the ready sources by BM25 over their text and heading path (a heading word counts twice), with words found by Unicode segmentation and stemmed by SEARCH_STEMMER. `filter.documentIds` and `filter.metadata` (exact values of the source's metadata) narrow it. Stop words of that language are left out of a query that has other words. Each API process holds an index per knowledge base, built from its chunks and kept from the change feed, so every replica caught up to the same feed position gives the same answer (equal scores in chunk id order). Read-only keys may search.",
      security,
      request: { params: z.object({ kbId: idSchema }), body: { content: { 'application/json': { schema: searchRequestSchema } }, required: true } },
      responses: { 200: jsonResponse(searchResultSchema, 'The best chunks, best first'), ...errorResponses(400, 401, 403, 404, 413, 500, 503) },
    }),
    async (c) => {
      const { kbId } = c.req.valid('param');
      const workspaceId = c.get('principal').workspaceId;
      await assertOwned(kb, workspaceId, kbId);
      const data = await searchKb({ redis: store.search.redis, keys: store.keys, kbs: store.kbs, index: store.search }, workspaceId, kbId, c.req.valid('json'));
      return c.json({ data }, 200);
    },
  );
  return app;
}
