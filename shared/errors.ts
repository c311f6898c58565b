/**
 * The service's error hierarchy. Each error carries a domain code, never an
 * HTTP status: the API maps codes to statuses and messages in one table
 * (api/middleware/errors.ts), so the store, the worker and the CLI stay free of HTTP.
 */
export type AppErrorCode =
  | 'bad_request'
  | 'validation'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'conflict'
  | 'precondition_failed'
  | 'gone'
  | 'unprocessable'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'unavailable';

export class AppError extends Error {
  override name = 'AppError';
  readonly code: AppErrorCode = 'bad_request';
  /** A message safe to show to a client; undefined means the code's default. */
  readonly publicMessage: string | undefined;

  constructor(message?: string) {
    super(message ?? 'application error');
    this.publicMessage = message;
  }
}

export class BadRequestError extends AppError {
  override name = 'BadRequestError';
  override readonly code = 'bad_request';
}

/** Caused by fields; `fields` maps a field (or part) name to its message. */
export class ValidationError extends AppError {
  override name = 'ValidationError';
  override readonly code = 'validation';
  constructor(
    readonly fields: Record<string, string>,
    message?: string,
  ) {
    super(message);
  }
}

export class UnauthorizedError extends AppError {
  override name = 'UnauthorizedError';
  override readonly code = 'unauthenticated';
}

/** The reasons of a 403, shown in `validationErrors.request`. */
export const READ_ONLY_KEY = 'this API key is read-only';
export const OTHER_WORKSPACE = "the resource belongs to another workspace than this key's";

/** `reason` says why, for `validationErrors` (read-only key, another workspace's resource). */
export class ForbiddenError extends AppError {
  override name = 'ForbiddenError';
  override readonly code = 'forbidden';
  constructor(readonly reason?: string) {
    super();
  }
}

/** `missing`, when known, names the path parameter of the missing resource and says what is missing. */
export class NotFoundError extends AppError {
  override name = 'NotFoundError';
  override readonly code = 'not_found';
  constructor(readonly missing?: PartDetail) {
    super();
  }
}

/** The resources a 404 can name, by the path parameter that names them. */
const RESOURCE_PARAM = { 'Knowledge base': 'kbId', Document: 'documentId', Site: 'siteId', Webhook: 'webhookId', 'QA issue': 'qaIssueId' } as const;
export type ResourceKind = keyof typeof RESOURCE_PARAM;

/**
 * A 404 that says which resource is missing, e.g. `kbId`: `knowledge base
 * kb_x was not found`. The message stays the source description's; ids have
 * passed the path pattern, so they are safe to echo.
 */
export function notFound(kind: ResourceKind, id: string, within?: string): NotFoundError {
  return new NotFoundError({ part: RESOURCE_PARAM[kind], detail: `${kind} ${id} was not found${within ? ` in ${within}` : ''}` });
}

export class MethodNotAllowedError extends AppError {
  override name = 'MethodNotAllowedError';
  override readonly code = 'method_not_allowed';
  constructor(readonly allow: string[]) {
    super();
  }
}

/** The client sent its request body too slowly. */
export class RequestTimeoutError extends AppError {
  override name = 'RequestTimeoutError';
  override readonly code = 'request_timeout';
}

/** `retryAfterSeconds`, when set, says the conflict should pass by itself (a request still in progress). */
/** What was asked for existed but is no longer kept (a change-feed cursor past retention). */
export class GoneError extends AppError {
  override name = 'GoneError';
  override readonly code = 'gone';
}

export class ConflictError extends AppError {
  override name = 'ConflictError';
  override readonly code = 'conflict';
  constructor(
    message?: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** A workspace quota would be passed (a 409). Not kept for an Idempotency-Key: a retry may fit once room is made. */
export class QuotaExceededError extends ConflictError {
  override name = 'QuotaExceededError';
}

/** Which part of a multipart request an error is about, and what is wrong with it. */
export interface PartDetail {
  /** The part or field, e.g. `knowledge_base_files[2]`. */
  part: string;
  detail: string;
}

/** An `If-Match` revision that is no longer current; `currentRev` is the one that is, for the 412's ETag. */
export class PreconditionFailedError extends AppError {
  override name = 'PreconditionFailedError';
  override readonly code = 'precondition_failed';
  constructor(readonly currentRev?: number) {
    super();
  }
}

/** Well-formed, but not acceptable in this state (an Idempotency-Key reused for another request). */
export class UnprocessableError extends AppError {
  override name = 'UnprocessableError';
  override readonly code = 'unprocessable';
}

/** `at` names the multipart part or field that passed a limit, when one did. */
export class PayloadTooLargeError extends AppError {
  override name = 'PayloadTooLargeError';
  override readonly code = 'payload_too_large';
  constructor(
    message?: string,
    readonly at?: PartDetail,
  ) {
    super(message);
  }
}

/** `at` names the refused file part, when there is one. */
export class UnsupportedMediaTypeError extends AppError {
  override name = 'UnsupportedMediaTypeError';
  override readonly code = 'unsupported_media_type';
  constructor(
    message?: string,
    readonly at?: PartDetail,
  ) {
    super(message);
  }
}

export class TooManyRequestsError extends AppError {
  override name = 'TooManyRequestsError';
  override readonly code = 'rate_limited';
  constructor(
    readonly retryAfterSeconds: number,
    message?: string,
  ) {
    super(message);
  }
}

/** A dependency (Redis) is down or full; the client may retry later. */
export class UnavailableError extends AppError {
  override name = 'UnavailableError';
  override readonly code = 'unavailable';
  constructor(
    message?: string,
    readonly retryAfterSeconds = 5,
  ) {
    super(message);
  }
}

/** The workspace's stored-bytes quota would be passed (a 413). Not kept for an Idempotency-Key, like the other quotas. */
export class StoredBytesQuotaError extends PayloadTooLargeError {
  override name = 'StoredBytesQuotaError';
}

/** The workspace's quota of sources in flight would be passed (a 429 that passes as sources end). */
export class InFlightQuotaError extends TooManyRequestsError {
  override name = 'InFlightQuotaError';
}

/** A refusal by a workspace quota, of any status: it may pass once room is made. */
export function isQuotaRefusal(err: unknown): boolean {
  return err instanceof QuotaExceededError || err instanceof StoredBytesQuotaError || err instanceof InFlightQuotaError;
}
