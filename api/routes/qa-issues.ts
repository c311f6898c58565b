import { createRoute, z } from '@hono/zod-openapi';
import { ForbiddenError, OTHER_WORKSPACE, notFound } from '../../shared/errors.js';
import { qaIssueSchema } from '../../shared/schemas/catalog.js';
import { idSchema } from '../../shared/schemas/common.js';
import type { AppDeps } from '../deps.js';
import { createRouter, errorResponses, jsonResponse, security, TAGS } from '../openapi/router.js';

export function qaIssueRoutes(deps: AppDeps) {
  const app = createRouter();

  app.openapi(
    createRoute({
      method: 'get',
      path: '/qa-issues/{qaIssueId}',
      operationId: 'getQaIssue',
      tags: [TAGS.qaIssues],
      summary: 'Get QA issue',
      description: 'One QA issue with the rule as it was when the issue was raised (`qaRuleSnapshot`).',
      security,
      request: { params: z.object({ qaIssueId: idSchema }) },
      responses: { 200: jsonResponse(qaIssueSchema, 'The QA issue'), ...errorResponses(400, 401, 403, 404, 500, 503) },
    }),
    async (c) => {
      const { qaIssueId } = c.req.valid('param');
      const found = await deps.store.catalog.getQaIssue(qaIssueId);
      if (!found) throw notFound('QA issue', qaIssueId);
      if (found.workspaceId !== c.get('principal').workspaceId) throw new ForbiddenError(OTHER_WORKSPACE);
      return c.json(found.value, 200);
    },
  );

  return app;
}
