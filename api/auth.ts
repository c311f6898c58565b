import type { MiddlewareHandler } from 'hono';
import { ForbiddenError, READ_ONLY_KEY, UnauthorizedError } from '../shared/errors.js';
import type { KeyStore } from '../shared/store/key-store.js';
import type { AppEnv } from './context.js';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const MAX_KEY_LENGTH = 256;

/**
 * X-API-Key authentication. Runs before any handler reads the body, so an
 * unauthenticated upload costs nothing. Keys are looked up by their SHA-256
 * hash; a read-only key may only read.
 */
export function apiKeyAuth(keys: KeyStore): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const presented = c.req.header('x-api-key');
    if (!presented || presented.length > MAX_KEY_LENGTH) throw new UnauthorizedError();
    const principal = await keys.authenticate(presented);
    if (!principal) throw new UnauthorizedError();
    if (principal.readOnly && !READ_METHODS.has(c.req.method)) throw new ForbiddenError(READ_ONLY_KEY);
    c.set('principal', principal);
    c.set('logger', c.get('logger').child({ keyId: principal.keyId, workspaceId: principal.workspaceId }));
    await next();
  };
}
