import { createRoute } from '@hono/zod-openapi';
import { agentPageSchema } from '../../shared/schemas/catalog.js';
import { pageQuerySchema, toPage } from '../../shared/schemas/common.js';
import type { AppDeps } from '../deps.js';
import { createRouter, errorResponses, jsonResponse, security, TAGS } from '../openapi/router.js';

export function agentRoutes(deps: AppDeps) {
  const app = createRouter();

  app.openapi(
    createRoute({
      method: 'get',
      path: '/agents',
      operationId: 'listAgents',
      tags: [TAGS.agents],
      summary: 'List agents',
      description:
        "A page of the workspace's single-prompt agents in creation order. `page` defaults to 0, `size` to 20 (at most 100); a page past the end has empty `data`.",
      security,
      request: { query: pageQuerySchema },
      responses: { 200: jsonResponse(agentPageSchema, 'A page of agents'), ...errorResponses(400, 401, 403, 500, 503) },
    }),
    async (c) => {
      const { page = 0, size = 20 } = c.req.valid('query');
      const { items, total } = await deps.store.catalog.listAgents(c.get('principal').workspaceId, page, size);
      return c.json(toPage(items, page, size, total), 200);
    },
  );

  return app;
}
