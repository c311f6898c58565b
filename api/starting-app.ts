import { Hono } from 'hono';
import type { Logger } from '../shared/runtime/logger.js';
import type { AppEnv } from './context.js';
import { DEPENDENCY_RETRY_AFTER_SECONDS, errorResponse } from './middleware/errors.js';
import { requestContext } from './middleware/request-context.js';
import { notReady } from './routes/health.js';

/**
 * What the API serves until it has reached Redis: alive (`/healthz` 200) but
 * not ready (`/readyz` 503), and every other request a 503 with the error
 * body and `Retry-After`, so clients and load balancers wait instead of
 * failing.
 */
export function createStartingApp(logger: Logger): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', requestContext(logger));
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) => notReady(c));
  app.all('*', (c) => errorResponse(c, 'unavailable', { headers: { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) } }));
  return app;
}
