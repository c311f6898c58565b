import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ZodError } from 'zod';
import {
  AppError,
  ConflictError,
  ForbiddenError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  PreconditionFailedError,
  TooManyRequestsError,
  UnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
  type AppErrorCode,
} from '../../shared/errors.js';
import { isRedisUnavailable } from '../../shared/redis/redis.js';
import type { ErrorBody } from '../../shared/schemas/common.js';
import type { AppEnv } from '../context.js';
import { etagOf } from './etag.js';
import { CODE_STATUS, STATUS_TABLE, isErrorStatus, type ErrorStatus } from './status-table.js';

/** Seconds a client should wait when Redis is unreachable (the starting app, readiness, a lost connection). */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;
const KB_500_MESSAGE = 'Something went wrong on the server';
/** Response headers of a Hono HTTPException that say how to retry or authenticate. */
const HTTP_EXCEPTION_HEADERS = ['allow', 'retry-after', 'www-authenticate'];

/**
 * The collection path of a request path, as in the source's samples:
 * `/v1/knowledge-bases/kb_x/...` → `/v1/knowledge-bases`.
 */
export function collectionPath(path: string): string {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'v1' && parts[1] === 'admin' && parts.length >= 3) return `/v1/admin/${parts[2]}`;
  if (parts[0] === 'v1' && parts.length >= 2) return `/v1/${parts[1]}`;
  return path === '' ? '/' : path;
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

/** What an error response says besides its status. */
export interface ErrorResponseOptions {
  /** Default: the table's message for the status. */
  message?: string | undefined;
  /** `validationErrors`: field or part name to message. */
  fields?: Record<string, string> | undefined;
  headers?: Record<string, string>;
  /** The path the body names, reduced to its collection. Default: the request's path. */
  path?: string;
}

/** The one builder of error responses: the contract's body with the table's strings for `status`. */
function respond(c: Context, status: ErrorStatus, opts: ErrorResponseOptions): Response {
  const { error, message: defaultMessage } = STATUS_TABLE[status];
  const collection = collectionPath(opts.path ?? c.req.path);
  const fallback = status === 500 && collection === '/v1/knowledge-bases' ? KB_500_MESSAGE : defaultMessage;
  const body: ErrorBody = { timestamp: new Date().toISOString(), status, error, message: opts.message ?? fallback, path: collection };
  if (opts.fields && Object.keys(opts.fields).length > 0) body.validationErrors = opts.fields;
  return c.json(body, status, opts.headers);
}

/**
 * Answers with the contract's error body for a domain code, its status from
 * the one table. For answers given without throwing (operator auth, the
 * starting app); thrown errors go through {@link handleError}.
 */
export function errorResponse(c: Context, code: AppErrorCode | 'internal', opts: ErrorResponseOptions = {}): Response {
  return respond(c, CODE_STATUS[code], opts);
}

/**
 * The table's status for a Hono HTTPException (from Hono's own middleware or
 * validators): its own when the table has it, else 400 or 500.
 */
function httpExceptionStatus(err: HTTPException): ErrorStatus {
  if (isErrorStatus(err.status)) return err.status;
  return err.status >= 500 ? 500 : 400;
}

/** Maps any thrown value to a response with the contract's error body. */
export function handleError(err: unknown, c: Context<AppEnv>): Response {
  const headers: Record<string, string> = {};
  let status: ErrorStatus = 500;
  let message: string | undefined;
  let fields: Record<string, string> | undefined;

  if (err instanceof AppError) {
    status = CODE_STATUS[err.code];
    message = err.publicMessage;
    if (err instanceof ValidationError) fields = err.fields;
    if ((err instanceof PayloadTooLargeError || err instanceof UnsupportedMediaTypeError) && err.at) {
      fields = { [err.at.part]: err.at.detail };
    }
    if (err instanceof ForbiddenError && err.reason) fields = { request: err.reason };
    if (err instanceof NotFoundError && err.missing) fields = { [err.missing.part]: err.missing.detail };
    if (err instanceof MethodNotAllowedError) headers.Allow = err.allow.join(', ');
    if (err instanceof TooManyRequestsError || err instanceof UnavailableError) {
      headers['Retry-After'] = String(err.retryAfterSeconds);
    }
    if (err instanceof ConflictError && err.retryAfterSeconds !== undefined) headers['Retry-After'] = String(err.retryAfterSeconds);
    // A client that lost the race reads the current revision from the 412 without another GET.
    if (err instanceof PreconditionFailedError && err.currentRev !== undefined) headers.ETag = etagOf(err.currentRev);
  } else if (err instanceof HTTPException) {
    // Its message is Hono's or a middleware's, not the contract's: the table's default is answered.
    status = httpExceptionStatus(err);
    for (const name of HTTP_EXCEPTION_HEADERS) {
      const value = err.res?.headers.get(name);
      if (value) headers[name] = value;
    }
  } else if (isRedisUnavailable(err)) {
    status = 503;
    headers['Retry-After'] = String(DEPENDENCY_RETRY_AFTER_SECONDS);
  }
  const logger = c.get('logger');
  if (status === 500) logger?.error({ err, status }, 'request failed');
  else if (status === 503) logger?.warn({ err, status }, 'request refused: a dependency is unavailable');
  else logger?.debug({ status, code: err instanceof AppError ? err.code : 'unknown' }, 'request refused');
  if (status === 500) message = undefined;
  return respond(c, status, { message, fields, headers });
}
