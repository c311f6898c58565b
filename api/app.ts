import type { OpenAPIHono } from '@hono/zod-openapi';
import { MethodNotAllowedError, NotFoundError } from '../shared/errors.js';
import { apiKeyAuth } from './middleware/auth.js';
import type { AppEnv } from './context.js';
import { kbDepsOf, type AppDeps } from './deps.js';
import { mountBoard } from './ops/admin-board.js';
import { handleError } from './middleware/errors.js';
import { createMetrics, metricsAuth } from './ops/metrics.js';
import { mountDocs } from './openapi/openapi.js';
import { rateLimit } from './middleware/rate-limit.js';
import { requestContext } from './middleware/request-context.js';
import { adminKeyRoutes } from './routes/admin-keys.js';
import { agentRoutes } from './routes/agents.js';
import { documentMetadataRoutes } from './routes/document-metadata.js';
import { documentRoutes } from './routes/documents.js';
import { documentReplaceRoutes } from './routes/document-replace.js';
import { healthRoutes } from './routes/health.js';
import { kbChangeRoutes } from './routes/kb-changes.js';
import { kbChunkRoutes } from './routes/kb-chunks.js';
import { kbSearchRoutes } from './routes/kb-search.js';
import { knowledgeBaseRoutes } from './routes/knowledge-bases.js';
import { siteRoutes } from './routes/sites.js';
import { qaIssueRoutes } from './routes/qa-issues.js';
import { usageRoutes } from './routes/usage.js';
import { webhookRoutes } from './routes/webhooks.js';
import { createRouter } from './openapi/router.js';
import { closeUnreadBodies } from './http/unread-body.js';

/**
 * Builds the HTTP application. It starts nothing: `server.ts` listens, tests
 * call `app.request()`.
 */
export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const app = createRouter();

  app.use('*', requestContext(deps.logger));
  app.use('*', closeUnreadBodies());

  const metrics = createMetrics(deps.redis, deps.store.keys, deps.ingestQueue, deps.webhookQueue);
  app.use('*', metrics.middleware);
  const { BULL_BOARD_USER: user, BULL_BOARD_PASSWORD: password } = deps.config;
  // Closed by default: the API's port is often public, and the figures are for operators.
  app.use('/metrics', metricsAuth({ requireAuth: deps.config.METRICS_REQUIRE_AUTH, token: deps.config.METRICS_TOKEN, user, password }));
  app.get('/metrics', async (c) => {
    const { body, contentType } = await metrics.render();
    return c.body(body, 200, { 'Content-Type': contentType });
  });

  app.route('/', healthRoutes(deps));
  const boardQueues = [deps.ingestQueue, deps.webhookQueue].filter((q) => q !== undefined);
  if (user && password && boardQueues.length > 0) mountBoard(app, boardQueues, user, password);

  // Before the API-key check: operators authenticate with ADMIN_TOKEN, not with a workspace's key.
  app.route('/v1', adminKeyRoutes(deps));
  app.use('/v1/*', apiKeyAuth(deps.store.apiKeys));
  app.use('/v1/*', rateLimit(deps.redis, deps.store.keys, deps.config.RATE_LIMIT_PER_MINUTE));
  const kb = kbDepsOf(deps);
  app.route('/v1', kbChunkRoutes(deps, kb));
  app.route('/v1', kbChangeRoutes(deps));
  app.route('/v1', kbSearchRoutes(deps, kb));
  app.route('/v1', knowledgeBaseRoutes(deps, kb));
  app.route('/v1', documentRoutes(deps, kb));
  app.route('/v1', documentReplaceRoutes(deps, kb));
  app.route('/v1', documentMetadataRoutes(deps));
  app.route('/v1', siteRoutes(deps));
  app.route('/v1', agentRoutes(deps));
  app.route('/v1', qaIssueRoutes(deps));
  app.route('/v1', webhookRoutes(deps));
  app.route('/v1', usageRoutes(deps));
  mountDocs(app);

  const allowed = methodTable(app);
  app.notFound((c) => {
    const methods = allowed(c.req.method, c.req.path);
    const res = handleError(methods.length > 0 ? new MethodNotAllowedError(methods) : new NotFoundError(), c);
    res.headers.set('X-Request-Id', c.get('requestId') ?? '');
    return res;
  });
  app.onError((err, c) => {
    const res = handleError(err, c);
    res.headers.set('X-Request-Id', c.get('requestId') ?? '');
    return res;
  });
  return app;
}

/**
 * For a request that no route answered, the methods that other routes answer
 * on its path: a 405 with `Allow` when there are some and the request's own
 * method is not among them, else a 404.
 */
function methodTable(app: OpenAPIHono<AppEnv>): (method: string, path: string) => string[] {
  let table: { re: RegExp; method: string }[] | undefined;
  return (method, path) => {
    table ??= app.routes
      .filter((r) => r.method !== 'ALL' && !r.path.includes('*'))
      .map((r) => ({ re: new RegExp(`^${r.path.replace(/:[^/]+/g, '[^/]+')}$`), method: r.method }));
    const allowed = [...new Set(table.filter((r) => r.re.test(path)).map((r) => r.method))];
    return allowed.includes(method) ? [] : allowed;
  };
}
