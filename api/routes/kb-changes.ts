import { createRoute, z } from '@hono/zod-openapi';
import { changesPageSchema } from '../../shared/schemas/changes.js';
import { idSchema } from '../../shared/schemas/common.js';
import type { AppDeps } from '../deps.js';
import { createRouter, errorResponses, jsonResponse, security, TAGS } from '../openapi/router.js';

/** Largest page of the change feed. */
export const MAX_CHANGES_PAGE_SIZE = 1000;
const DEFAULT_CHANGES_PAGE_SIZE = 100;

const changesQuery = z.object({
  after: z.string().max(256).optional().meta({
    description: 'A `nextCursor` of an earlier page, or the `changesCursor` of GET …/chunks; left out, the feed is read from the oldest event it keeps',
  }),
  size: z.coerce.number().int().min(1).max(MAX_CHANGES_PAGE_SIZE).optional().meta({ description: `Events per page (default ${DEFAULT_CHANGES_PAGE_SIZE}, at most ${MAX_CHANGES_PAGE_SIZE})` }),
});

/** GET of a knowledge base's change feed: what keeps a vector store in sync, one page of events at a time. */
export function kbChangeRoutes(deps: AppDeps) {
  const app = createRouter();
  app.openapi(
    createRoute({
      method: 'get',
      path: '/knowledge-bases/{kbId}/changes',
      operationId: 'listKnowledgeBaseChanges',
      tags: [TAGS.knowledgeBases],
      summary: 'Changes of the chunks of a knowledge base',
      description:
        'The chunk.upserted (with the chunk) and chunk.deleted (with its id) events after `after`, oldest first, at most `size` and about 1 MiB a page. Store `nextCursor` and read again from it; `hasMore` says whether more follow at once. A source becoming ready, refreshed with other content, failed, re-chunked or deleted all appear; a refresh yielding the same chunks appears as nothing. A deleted knowledge base\'s feed ends with knowledge_base.deleted, which every cursor of it reads for CHANGES_RETENTION_HOURS: drop its chunks. A cursor older than what the feed keeps is a 410: resync from GET …/chunks. A cursor of another knowledge base or ahead of the feed is a 400.',
      security,
      request: { params: z.object({ kbId: idSchema }), query: changesQuery },
      responses: { 200: jsonResponse(changesPageSchema, 'Events after the cursor, and the cursor to read on from'), ...errorResponses(400, 401, 403, 404, 410, 500, 503) },
    }),
    async (c) => {
      const { after, size = DEFAULT_CHANGES_PAGE_SIZE } = c.req.valid('query');
      return c.json(await deps.store.changes.read(c.get('principal').workspaceId, c.req.valid('param').kbId, after, size), 200);
    },
  );
  return app;
}
