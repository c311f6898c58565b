import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../../api/context.js';
import { handleError } from '../../api/middleware/errors.js';
import { fileTooLargeMessage, formatLimit } from '../../api/http/limit-messages.js';
import { call, expectErrorBody } from './support.js';

/** An app with the API's one onError and a route that throws what it is given. */
function throwing(err: () => unknown): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.all('/v1/things/*', () => {
    throw err();
  });
  app.onError(handleError);
  return app;
}

describe("Hono's HTTPException", () => {
  it('is answered with the contract error body and its own status', async () => {
    const res = await call(throwing(() => new HTTPException(404, { message: 'raw middleware text' })), 'GET', '/v1/things/x');
    expectErrorBody(res, 404, '/v1/things');
    expect(res.text).not.toContain('raw middleware text');
  });

  it('keeps the headers that say how to retry or authenticate', async () => {
    const challenge = new Response(null, { status: 401, headers: { 'WWW-Authenticate': 'Basic realm="x"', 'X-Other': 'dropped' } });
    const res = await call(throwing(() => new HTTPException(401, { res: challenge })), 'GET', '/v1/things/x');
    expectErrorBody(res, 401, '/v1/things');
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="x"');
    expect(res.headers.get('x-other')).toBeNull();
  });

  it('answers 413 from a body limit with the error body', async () => {
    const res = await call(throwing(() => new HTTPException(413)), 'POST', '/v1/things/x');
    expectErrorBody(res, 413, '/v1/things', { message: 'any' });
  });

  it('maps a status outside the table to 400 or 500', async () => {
    expectErrorBody(await call(throwing(() => new HTTPException(418)), 'GET', '/v1/things/x'), 400, '/v1/things');
    expectErrorBody(await call(throwing(() => new HTTPException(502)), 'GET', '/v1/things/x'), 500, '/v1/things');
  });
});

describe('the file size message', () => {
  it("is the contract's text at the default MAX_FILE_BYTES", () => {
    expect(fileTooLargeMessage(26_214_400)).toBe('An uploaded file exceeds the per-file size limit (25 MB).');
  });

  it('names another configured limit in MB when whole, else in bytes', () => {
    expect(formatLimit(5 * 1024 * 1024)).toBe('5 MB');
    expect(fileTooLargeMessage(1000)).toBe('An uploaded file exceeds the per-file size limit (1000 bytes).');
  });
});
