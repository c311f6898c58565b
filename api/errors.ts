import type { Context } from 'hono';
import type { ZodError } from 'zod';
import {
  AppError,
  ForbiddenError,
  MethodNotAllowedError,
  PayloadTooLargeError,
  TooManyRequestsError,
  UnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
  type AppErrorCode,
} from '../shared/errors.js';
import { isRedisUnavailable } from '../shared/redis.js';
import type { ErrorBody } from '../shared/schemas/common.js';
import type { AppEnv } from './context.js';

/**
 * The one table from domain error codes to HTTP: status, the source's `error`
 * string and default `message` (section 7 of the source description).
 */
const CODE_TABLE: Record<AppErrorCode | 'internal', { status: number; error: string; message: string }> = {
  bad_request: { status: 400, error: 'Bad Request', message: 'Invalid request parameters' },
  validation: { status: 400, error: 'Bad Request', message: 'Invalid request parameters' },
  unauthenticated: { status: 401, error: 'Unauthorized', message: 'X-API-Key is missing or invalid' },
  forbidden: { status: 403, error: 'Forbidden', message: 'Access denied for this resource' },
  not_found: { status: 404, error: 'Not Found', message: 'The requested resource was not found' },
  method_not_allowed: { status: 405, error: 'Method Not Allowed', message: 'The method is not allowed for this resource' },
  request_timeout: { status: 408, error: 'Request Timeout', message: 'The request body arrived too slowly' },
  conflict: { status: 409, error: 'Conflict', message: 'The request conflicts with the current state of the resource' },
  unprocessable: { status: 422, error: 'Unprocessable Entity', message: 'The request is well-formed but cannot be processed' },
  precondition_failed: { status: 412, error: 'Precondition Failed', message: 'The resource has changed since the If-Match revision' },
  payload_too_large: { status: 413, error: 'Payload Too Large', message: 'An uploaded file exceeds the per-file size limit (25 MB).' },
  unsupported_media_type: {
    status: 415,
    error: 'Unsupported Media Type',
    message: 'Uploaded file type is not supported. Allowed: PDF, TXT, HTML, Markdown, DOCX.',
  },
  rate_limited: { status: 429, error: 'Too Many Requests', message: 'Too many requests; try again later' },
  unavailable: { status: 503, error: 'Service Unavailable', message: 'The service is temporarily unavailable; try again shortly' },
  internal: { status: 500, error: 'Internal Server Error', message: 'Unexpected server error' },
};
const BY_STATUS = new Map(Object.values(CODE_TABLE).map((row) => [row.status, row]));
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
  const { error, message: defaultMessage } = BY_STATUS.get(status) ?? CODE_TABLE.internal;
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
    status = CODE_TABLE[err.code].status;
    message = err.publicMessage;
    if (err instanceof ValidationError) fields = err.fields;
    if ((err instanceof PayloadTooLargeError || err instanceof UnsupportedMediaTypeError) && err.at) {
      fields = { [err.at.part]: err.at.detail };
    }
    if (err instanceof ForbiddenError && err.reason) fields = { request: err.reason };
    if (err instanceof MethodNotAllowedError) headers.Allow = err.allow.join(', ');
    if (err instanceof TooManyRequestsError || err instanceof UnavailableError) {
      headers['Retry-After'] = String(err.retryAfterSeconds);
    }
  } else if (isRedisUnavailable(err)) {
    status = 503;
    headers['Retry-After'] = '5';
  }
  const logger = c.get('logger');
  if (status === 500) logger?.error({ err, status }, 'request failed');
  else if (status === 503) logger?.warn({ err, status }, 'request refused: a dependency is unavailable');
  else logger?.debug({ status, code: err instanceof AppError ? err.code : 'unknown' }, 'request refused');
  if (status === 500) message = undefined;
  return c.json(errorBody(status, path, message, fields), status as 400, headers);
}
