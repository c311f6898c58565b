import type { MiddlewareHandler } from 'hono';
import { BadRequestError, ForbiddenError, READ_ONLY_KEY, UnauthorizedError } from '../../shared/errors.js';
import type { KeyStore } from '../../shared/store/key-store.js';
import type { AppEnv } from '../context.js';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** POSTs that only read (a search sends its query as a body), which a read-only key may make. */
const READ_POSTS = /^\/v1\/knowledge-bases\/[^/]+\/search$/;
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
    // A key in the URL lands in proxy and browser logs: refuse it even when the header is right, so the client learns.
    if (keyInQuery(c.req.url, presented)) {
      throw new BadRequestError('Send the API key only in the X-API-Key header, never in the URL; a key that was sent in a URL should be revoked');
    }
    const principal = await keys.authenticate(presented);
    if (!principal) throw new UnauthorizedError();
    const reads = READ_METHODS.has(c.req.method) || (c.req.method === 'POST' && READ_POSTS.test(c.req.path));
    if (principal.readOnly && !reads) throw new ForbiddenError(READ_ONLY_KEY);
    c.set('principal', principal);
    c.set('logger', c.get('logger').child({ keyId: principal.keyId, workspaceId: principal.workspaceId }));
    await next();
  };
}

/** Whether the URL's query carries `key`, as a value or anywhere in the raw query (percent-decoded). */
function keyInQuery(url: string, key: string): boolean {
  const query = new URL(url).search;
  if (query === '') return false;
  let decoded = query;
  try {
    decoded = decodeURIComponent(query.replace(/\+/g, ' '));
  } catch {
    // A malformed escape: the raw query is still searched.
  }
  return query.includes(key) || decoded.includes(key);
}
