import type { Context } from 'hono';
import type { ZodError } from 'zod';
import { AppError, MethodNotAllowedError, TooManyRequestsError, UnavailableError, ValidationError } from '../shared/errors.js';
import { isRedisUnavailable } from '../shared/redis.js';
import type { ErrorBody } from '../shared/schemas/common.js';
import type { AppEnv } from './context.js';

/** `error` and default `message` per status, as in the source's section 7. */
const STATUS_TABLE: Record<number, [string, string]> = {
  400: ['Bad Request', 'Invalid request parameters'],
  401: ['Unauthorized', 'X-API-Key is missing or invalid'],
  403: ['Forbidden', 'Access denied for this resource'],
  404: ['Not Found', 'The requested resource was not found'],
  405: ['Method Not Allowed', 'The method is not allowed for this resource'],
  409: ['Conflict', 'The request conflicts with the current state of the resource'],
  413: ['Payload Too Large', 'An uploaded file exceeds the per-file size limit (25 MB).'],
  415: ['Unsupported Media Type', 'Uploaded file type is not supported. Allowed: PDF, TXT, HTML, Markdown, DOCX.'],
  429: ['Too Many Requests', 'Too many requests; try again later'],
  500: ['Internal Server Error', 'Unexpected server error'],
  503: ['Service Unavailable', 'The service is temporarily unavailable; try again shortly'],
};
const KB_500_MESSAGE = 'Something went wrong on the server';

/**
 * The collection path of a request path, as in the source's samples:
 * `/v1/knowledge-bases/kb_x/...` → `/v1/knowledge-bases`.
 */
export function collectionPath(path: string): string {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'v1' && parts.length >= 2) return `/v1/${parts[1]}`;
  return path === '' ? '/' : path;
}

/** Builds the error body for a status and request path. */
export function errorBody(status: number, path: string, message?: string, validationErrors?: Record<string, string>): ErrorBody {
  const [error, defaultMessage] = STATUS_TABLE[status] ?? STATUS_TABLE[500]!;
  const collection = collectionPath(path);
  const fallback = status === 500 && collection === '/v1/knowledge-bases' ? KB_500_MESSAGE : defaultMessage;
  const body: ErrorBody = { timestamp: new Date().toISOString(), status, error, message: message ?? fallback, path: collection };
  if (validationErrors && Object.keys(validationErrors).length > 0) body.validationErrors = validationErrors;
  return body;
}

/** Turns zod issues into `validationErrors`: field name (with indexes) to message. */
export function zodFieldErrors(err: ZodError, fallbackField = 'request'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of err.issues) {
    const field = issue.path.length > 0 ? issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('') : fallbackField;
    out[field] ??= issue.message;
  }
  return out;
}

/** Maps any thrown value to a response with the contract's error body. */
export function handleError(err: unknown, c: Context<AppEnv>): Response {
  const path = c.req.path;
  const headers: Record<string, string> = {};
  let status = 500;
  let message: string | undefined;
  let fields: Record<string, string> | undefined;

  if (err instanceof AppError) {
    status = err.status;
    message = err.publicMessage;
    if (err instanceof ValidationError) fields = err.fields;
    if (err instanceof MethodNotAllowedError) headers.Allow = err.allow.join(', ');
    if (err instanceof TooManyRequestsError || err instanceof UnavailableError) {
      headers['Retry-After'] = String(err.retryAfterSeconds);
    }
  } else if (isRedisUnavailable(err)) {
    status = 503;
    headers['Retry-After'] = '5';
  }
  const logger = c.get('logger');
  if (status >= 500) logger?.error({ err, status }, 'request failed');
  else logger?.debug({ status, code: err instanceof Error ? err.name : 'unknown' }, 'request refused');
  if (status === 500) message = undefined;
  return c.json(errorBody(status, path, message, fields), status as 400, headers);
}
