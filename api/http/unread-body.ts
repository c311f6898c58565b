import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';

/**
 * The rest of a body nobody read (refused, or sent to a route that takes
 * none) is not worth reading: the connection is closed once the answer is
 * sent, instead of Node draining whatever the client keeps sending.
 */
export function closeIfBodyUnread(c: Context<AppEnv>): void {
  if (c.env?.incoming && !c.env.incoming.complete) c.env.outgoing?.setHeader('Connection', 'close');
}

/** {@link closeIfBodyUnread} after every answer. */
export function closeUnreadBodies(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    closeIfBodyUnread(c);
  };
}
