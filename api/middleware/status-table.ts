import type { AppErrorCode } from '../../shared/errors.js';
import { MAX_TEXT_FIELDS_BYTES } from '../../shared/schemas/source-form.js';

/** What the API says about one error status. */
export interface StatusRow {
  /** The contract's `error` string (section 7 of the source description). */
  error: string;
  /** The default `message` of the error body, when the error carries none. */
  message: string;
  /** When the status is answered, for the OpenAPI document. */
  description: string;
}

const MIB = 1024 * 1024;

/**
 * The one table of error statuses: the error body's strings and the OpenAPI
 * descriptions come from here. Limits are named by their setting, never by a
 * number that could drift from the configuration.
 */
export const STATUS_TABLE = {
  400: { error: 'Bad Request', message: 'Invalid request parameters', description: 'Invalid request parameters (validationErrors names the fields)' },
  401: { error: 'Unauthorized', message: 'X-API-Key is missing or invalid', description: 'X-API-Key is missing or invalid' },
  403: { error: 'Forbidden', message: 'Access denied for this resource', description: 'The key may not access this resource, or is read-only' },
  404: {
    error: 'Not Found',
    message: 'The requested resource was not found',
    description: 'The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId)',
  },
  405: {
    error: 'Method Not Allowed',
    message: 'The method is not allowed for this resource',
    description: 'The path exists but not with this method; Allow lists the methods it has',
  },
  408: {
    error: 'Request Timeout',
    message: 'The request body arrived too slowly',
    description: 'The request body arrived slower than UPLOAD_MIN_BYTES_PER_SECOND over the window',
  },
  409: {
    error: 'Conflict',
    message: 'The request conflicts with the current state of the resource',
    description:
      "The resource is not in a state that allows this, a workspace quota (QUOTA_*, or the workspace's own) would be passed (nothing was changed), or a request with this Idempotency-Key is still in progress (then Retry-After says when to repeat it)",
  },
  410: {
    error: 'Gone',
    message: 'The requested position is no longer kept',
    description:
      'The change-feed cursor is older than what CHANGES_RETENTION_HOURS, CHANGES_MAX_EVENTS, CHANGES_MAX_BYTES and CHANGES_WORKSPACE_MAX_BYTES keep; resync from GET /v1/knowledge-bases/{kbId}/chunks and follow the feed from its changesCursor',
  },
  412: {
    error: 'Precondition Failed',
    message: 'The resource has changed since the If-Match revision',
    description: 'If-Match names a revision of the knowledge base that is no longer current (or a weak tag); nothing was changed. ETag carries the current revision',
  },
  413: {
    error: 'Payload Too Large',
    // A file over the limit carries the contract's message built from MAX_FILE_BYTES (see limit-messages.ts).
    message: 'The request is larger than a limit allows',
    description: `A file is larger than MAX_FILE_BYTES, the body larger than MAX_REQUEST_BYTES, the text fields larger than ${MAX_TEXT_FIELDS_BYTES / MIB} MiB together, too many parts, or the request's texts and files would pass the workspace's quota of stored bytes (QUOTA_STORED_BYTES, or its own)`,
  },
  415: {
    error: 'Unsupported Media Type',
    message: 'Uploaded file type is not supported. Allowed: PDF, TXT, HTML, Markdown, DOCX.',
    description: 'A file type is not PDF, TXT, HTML, Markdown or DOCX, or the body is not multipart/form-data',
  },
  422: {
    error: 'Unprocessable Entity',
    message: 'The request is well-formed but cannot be processed',
    description: 'The Idempotency-Key was used before with a different request',
  },
  429: {
    error: 'Too Many Requests',
    message: 'Too many requests; try again later',
    description:
      "Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After",
  },
  500: { error: 'Internal Server Error', message: 'Unexpected server error', description: 'Unexpected server error' },
  503: {
    error: 'Service Unavailable',
    message: 'The service is temporarily unavailable; try again shortly',
    description: 'Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds',
  },
} as const satisfies Record<number, StatusRow>;

/** A status the API answers errors with. */
export type ErrorStatus = keyof typeof STATUS_TABLE;

/** The status of each domain error code; `internal` is anything unexpected. */
export const CODE_STATUS: Record<AppErrorCode | 'internal', ErrorStatus> = {
  bad_request: 400,
  validation: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  gone: 410,
  precondition_failed: 412,
  unprocessable: 422,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};

/** True when the table has a row for `status`. */
export function isErrorStatus(status: number): status is ErrorStatus {
  return Object.hasOwn(STATUS_TABLE, status);
}
