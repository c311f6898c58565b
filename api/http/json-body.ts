import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../../shared/errors.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * The guards in front of a route that takes a small JSON body: nothing past
 * `maxBytes` is read (413), and a body that is not JSON is the contract's
 * 400 instead of the exception Hono's JSON validator throws. With
 * `requireJsonType`, a body of another media type is a 415, as the
 * knowledge-base routes answer a body that is not multipart.
 */
export function jsonBodyGuards(maxBytes: number, opts: { requireJsonType?: boolean } = {}): [MiddlewareHandler, MiddlewareHandler] {
  return [
    bodyLimit({
      maxSize: maxBytes,
      onError: () => {
        throw new PayloadTooLargeError(`The request body must be at most ${maxBytes / 1024} KiB`);
      },
    }),
    async (c, next) => {
      if (opts.requireJsonType && !JSON_TYPE.test(c.req.header('content-type') ?? '')) {
        throw new UnsupportedMediaTypeError('The request body must be application/json');
      }
      try {
        JSON.parse(await c.req.text());
      } catch {
        throw new ValidationError({ request: 'the body must be a JSON object' });
      }
      await next();
    },
  ];
}
