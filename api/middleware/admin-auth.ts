import type { MiddlewareHandler } from 'hono';
import { NotFoundError } from '../../shared/errors.js';
import type { AppEnv } from '../context.js';
import { errorResponse } from './errors.js';
import { safeEqual } from './safe-equal.js';

const MAX_TOKEN_LENGTH = 512;

/**
 * Operator authentication for `/v1/admin/*`: `Authorization: Bearer
 * <ADMIN_TOKEN>`, compared in constant time. Without an ADMIN_TOKEN the
 * routes answer 404, as if they did not exist, whatever is sent. The token
 * is never logged (the logger redacts the header) nor echoed.
 */
export function adminAuth(token: string | undefined): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!token) throw new NotFoundError();
    const header = c.req.header('authorization') ?? '';
    const bearer = header.length <= MAX_TOKEN_LENGTH ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
    // The comparison runs even without a bearer, so timing does not tell a missing token from a wrong one.
    const ok = safeEqual(bearer ?? '', token) && bearer !== undefined;
    if (!ok) {
      c.get('logger').warn({ path: c.req.path }, 'admin request with a missing or wrong token');
      return errorResponse(c, 'unauthenticated', {
        message: 'The admin token is missing or wrong: send ADMIN_TOKEN as Authorization: Bearer <token>',
        headers: { 'WWW-Authenticate': 'Bearer realm="kb-ingest admin"' },
      });
    }
    c.set('logger', c.get('logger').child({ admin: true }));
    await next();
  };
}
