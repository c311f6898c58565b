import { Hono, type Context } from 'hono';
import type { AppEnv } from '../context.js';
import type { AppDeps } from '../deps.js';
import { DEPENDENCY_RETRY_AFTER_SECONDS } from '../middleware/errors.js';
import { CODE_STATUS } from '../middleware/status-table.js';
import { withTimeout } from '../../shared/runtime/timeout.js';

/** A ping slower than this counts as Redis down: a load balancer must not hang on readiness. */
const PING_TIMEOUT_MS = 1_000;

/** The readiness answer while Redis cannot be reached. */
export function notReady(c: Context<AppEnv>): Response {
  return c.json({ status: 'unavailable', redis: 'down' }, CODE_STATUS.unavailable, { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) });
}

/** Liveness and readiness, outside `/v1` and without a key. */
export function healthRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    try {
      await withTimeout(deps.redis.ping(), PING_TIMEOUT_MS);
      return c.json({ status: 'ok', redis: 'up' });
    } catch {
      return notReady(c);
    }
  });
  return app;
}
