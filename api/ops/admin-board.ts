import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Queue } from 'bullmq';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { INGEST_QUEUE } from '../../shared/queue/jobs.js';
import type { AppEnv } from '../context.js';
import { errorResponse } from '../middleware/errors.js';
import { safeEqual } from '../middleware/safe-equal.js';

export const BOARD_PATH = '/admin/queues';

/** True when an Origin header names the same host as the request. */
function sameHost(origin: string, requestUrl: string): boolean {
  try {
    return new URL(origin).host === new URL(requestUrl).host;
  } catch {
    return false;
  }
}

/**
 * The board page links fonts from a public CDN: the link is taken out of the
 * page (it falls back to system fonts), and this policy keeps operators'
 * browsers on this origin anyway.
 */
const BOARD_CSP =
  "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; font-src 'self' data:; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

/**
 * HTTP Basic auth for operators, separate from tenant API keys, plus a
 * same-origin check on state-changing requests: browsers send stored Basic
 * credentials on their own, so a page elsewhere must not be able to make an
 * operator's browser retry, clean or add jobs.
 */
export function boardAuth(user: string, password: string, path: string = BOARD_PATH): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header);
    const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
    const sep = decoded.indexOf(':');
    // Both comparisons always run, so timing does not tell which part was wrong.
    const userOk = safeEqual(decoded.slice(0, Math.max(sep, 0)), user);
    const passwordOk = safeEqual(decoded.slice(sep + 1), password);
    const ok = sep > 0 && userOk && passwordOk;
    if (!ok) {
      return errorResponse(c, 'unauthenticated', {
        path,
        message: 'Operator credentials are missing or wrong',
        headers: { 'WWW-Authenticate': 'Basic realm="kb-ingest queues", charset="UTF-8"' },
      });
    }
    if (!['GET', 'HEAD'].includes(c.req.method)) {
      const origin = c.req.header('origin');
      const site = c.req.header('sec-fetch-site');
      if (site === 'cross-site' || (origin !== undefined && !sameHost(origin, c.req.url))) {
        return errorResponse(c, 'forbidden', { path, message: 'Cross-origin request refused' });
      }
    }
    await next();
    c.header('Content-Security-Policy', BOARD_CSP);
  };
}

/** A `<link>` to a stylesheet on another origin (the board's web fonts). */
const REMOTE_STYLESHEET = /<link\b[^>]*href="https?:\/\/[^"]*"[^>]*rel="stylesheet"[^>]*>\s*/gi;

/**
 * Why a retry from the board is refused for the ingest queue: the job would
 * run again, but the source record stays `failed` (the worker finishes only
 * a run the API started), so the API's retry is the one that works.
 */
export const BOARD_RETRY_REFUSED =
  'A retry from the board would run the job but leave its source failed. Retry the source with POST /v1/knowledge-bases/{kbId}/documents/{documentId}/retry (the job data names kbId and documentId).';

/** Mounts Bull Board for the given queues under BOARD_PATH behind operator auth. */
export function mountBoard(app: Hono<AppEnv>, queues: Queue[], user: string, password: string): void {
  const adapter = new HonoAdapter(serveStatic);
  adapter.setBasePath(BOARD_PATH);
  createBullBoard({
    queues: queues.map(
      (q) => new BullMQAdapter(q, q.name === INGEST_QUEUE ? { allowRetries: false, description: 'Extraction jobs. Retry a failed source through the API: POST …/documents/{documentId}/retry.' } : {}),
    ),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: 'kb-ingest queues' } },
  });
  const auth = boardAuth(user, password);
  app.use(BOARD_PATH, auth);
  app.use(`${BOARD_PATH}/*`, auth);
  // The board's own API would answer 204 and move the job, which helps no one (see BOARD_RETRY_REFUSED).
  const refuseRetry = (c: Context<AppEnv>) => errorResponse(c, 'conflict', { path: BOARD_PATH, message: BOARD_RETRY_REFUSED });
  app.on(['PUT', 'POST'], `${BOARD_PATH}/api/queues/${INGEST_QUEUE}/retry/:status`, refuseRetry);
  app.on(['PUT', 'POST'], `${BOARD_PATH}/api/queues/${INGEST_QUEUE}/:jobId/retry`, refuseRetry);
  // Every page of the board (its client-side routes too) is the same HTML with the font link.
  const offlinePage: MiddlewareHandler<AppEnv> = async (c, next) => {
    await next();
    if (c.req.method !== 'GET' || !(c.res.headers.get('content-type') ?? '').startsWith('text/html')) return;
    const html = (await c.res.text()).replace(REMOTE_STYLESHEET, '');
    const headers = new Headers(c.res.headers);
    headers.delete('content-length');
    c.res = new Response(html, { status: c.res.status, headers });
  };
  app.use(BOARD_PATH, offlinePage);
  app.use(`${BOARD_PATH}/*`, offlinePage);
  app.route(BOARD_PATH, adapter.registerPlugin() as unknown as Hono<AppEnv>);
  // The board's own links and <base href> use the trailing slash.
  app.get(`${BOARD_PATH}/`, (c) => c.redirect(`${BOARD_PATH}${new URL(c.req.url).search}`, 308));
}
