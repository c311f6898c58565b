import { createRoute, z } from '@hono/zod-openapi';
import { idSchema } from '../../shared/schemas/common.js';
import { siteSchema } from '../../shared/schemas/site.js';
import type { AppDeps } from '../deps.js';
import { createRouter, emptyResponse, errorResponses, jsonResponse, security, TAGS } from '../openapi/router.js';
import { deleteSite, readSite, refreshSite, type SiteDeps } from '../../shared/verbs/sites.js';

const siteParams = z.object({ kbId: idSchema, siteId: idSchema });

/** Site sources of a knowledge base (`knowledge_base_sites`): read, discover again, remove. */
export function siteRoutes(deps: AppDeps) {
  const { store } = deps;
  const chunkDefaults = { maxTokens: deps.config.CHUNK_MAX_TOKENS, overlapTokens: deps.config.CHUNK_OVERLAP_TOKENS };
  const sites: SiteDeps = { kbs: store.kbs, sites: store.sites, queue: deps.queue, logger: deps.logger, chunkDefaults };
  const app = createRouter();

  app.openapi(
    createRoute({
      method: 'get',
      path: '/knowledge-bases/{kbId}/sites/{siteId}',
      operationId: 'getSite',
      tags: [TAGS.sites],
      summary: 'Get one site',
      description:
        'A site source with its settings, its discovery `status` (`discovering`, `done`, `failed`), `pagesFound`, `pagesAdded` and `truncated`. Its pages are the URL sources of the knowledge base that carry its `siteId`.',
      security,
      request: { params: siteParams },
      responses: { 200: jsonResponse(siteSchema, 'The site'), ...errorResponses(400, 401, 403, 404, 500, 503) },
    }),
    async (c) => {
      const { kbId, siteId } = c.req.valid('param');
      return c.json(await readSite(sites, { workspaceId: c.get('principal').workspaceId, kbId, siteId }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/knowledge-bases/{kbId}/sites/{siteId}',
      operationId: 'deleteSite',
      tags: [TAGS.sites],
      summary: 'Delete one site with its pages',
      description: 'Removes the site and every page its discoveries added (a page also listed by hand in knowledge_base_urls before the site found it stays). A second DELETE gives 404.',
      security,
      request: { params: siteParams },
      responses: { 204: emptyResponse('Deleted'), ...errorResponses(400, 401, 403, 404, 500, 503) },
    }),
    async (c) => {
      const { kbId, siteId } = c.req.valid('param');
      const workspaceId = c.get('principal').workspaceId;
      await deleteSite(sites, { workspaceId, kbId, siteId });
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/knowledge-bases/{kbId}/sites/{siteId}/refresh',
      operationId: 'refreshSite',
      tags: [TAGS.sites],
      summary: 'Discover a site again',
      description:
        "Runs the site's discovery again: new pages are added, every page is fetched again (unchanged ones keep their text), and a page that the discovery misses twice in a row (gone from the sitemap, no longer linked, or answering 404/410) is removed. The scheduled refresh (auto_refresh_hours) does the same.",
      security,
      request: { params: siteParams },
      responses: { 202: jsonResponse(siteSchema, 'The site, discovering'), ...errorResponses(400, 401, 403, 404, 500, 503) },
    }),
    async (c) => {
      const { kbId, siteId } = c.req.valid('param');
      return c.json(await refreshSite(sites, { workspaceId: c.get('principal').workspaceId, kbId, siteId }), 202);
    },
  );

  return app;
}
