import { OpenAPIHono } from '@hono/zod-openapi';
import type { z } from 'zod';
import { ValidationError } from '../shared/errors.js';
import { errorBodySchema } from '../shared/schemas/common.js';
import type { AppEnv } from './context.js';
import { zodFieldErrors } from './errors.js';

/**
 * A router whose request validation failures become the contract's 400 with
 * `validationErrors`, through the same error path as everything else.
 */
export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw new ValidationError(zodFieldErrors(result.error));
    },
  });
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request parameters (validationErrors names the fields)',
  401: 'X-API-Key is missing or invalid',
  403: 'The key may not access this resource, or is read-only',
  404: 'The resource was not found',
  408: 'The request body arrived slower than UPLOAD_MIN_BYTES_PER_SECOND over the window',
  409: 'The resource is not in a state that allows this',
  422: 'The Idempotency-Key was used before with a different request',
  412: 'If-Match names a revision of the knowledge base that is no longer current; nothing was changed',
  413: 'A file is larger than MAX_FILE_BYTES (25 MB by default), the body larger than MAX_REQUEST_BYTES, the text fields larger than 10 MiB together, or too many parts',
  415: 'A file type the deployment does not accept (PDF, TXT, HTML, Markdown or DOCX by default; ACCEPTED_FORMATS may add PPTX, XLSX, ODS, CSV, EPUB and ODT; the message lists what is accepted), or the body is not multipart/form-data',
  429: 'Too many requests with this key in the current minute, or too many uploads in progress with it; see Retry-After',
  500: 'Unexpected server error',
  503: 'Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds',
};

/** OpenAPI entries for the listed error statuses (plus 429, which any /v1 call can get), all with the error body. */
export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(
    [...new Set([...statuses, 429])].sort().map((s) => [s, { description: DESCRIPTIONS[s] ?? 'Error', content: { 'application/json': { schema: errorBodySchema } } }]),
  );
}

export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

export const security = [{ ApiKeyAuth: [] }];
