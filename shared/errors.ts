/**
 * The service's error hierarchy. Each error knows its HTTP status; the API
 * turns it into the contract's error body in one place (api/errors.ts).
 */
export class AppError extends Error {
  override name = 'AppError';
  readonly status: number = 500;
  /** A message safe to show to a client; undefined means the status's default. */
  readonly publicMessage: string | undefined;

  constructor(message?: string) {
    super(message ?? 'application error');
    this.publicMessage = message;
  }
}

export class BadRequestError extends AppError {
  override name = 'BadRequestError';
  override readonly status = 400;
}

/** A 400 caused by fields; `fields` maps a field name to its message. */
export class ValidationError extends AppError {
  override name = 'ValidationError';
  override readonly status = 400;
  constructor(
    readonly fields: Record<string, string>,
    message?: string,
  ) {
    super(message);
  }
}

export class UnauthorizedError extends AppError {
  override name = 'UnauthorizedError';
  override readonly status = 401;
}

export class ForbiddenError extends AppError {
  override name = 'ForbiddenError';
  override readonly status = 403;
}

export class NotFoundError extends AppError {
  override name = 'NotFoundError';
  override readonly status = 404;
}

export class MethodNotAllowedError extends AppError {
  override name = 'MethodNotAllowedError';
  override readonly status = 405;
  constructor(readonly allow: string[]) {
    super();
  }
}

export class ConflictError extends AppError {
  override name = 'ConflictError';
  override readonly status = 409;
}

export class PayloadTooLargeError extends AppError {
  override name = 'PayloadTooLargeError';
  override readonly status = 413;
}

export class UnsupportedMediaTypeError extends AppError {
  override name = 'UnsupportedMediaTypeError';
  override readonly status = 415;
}

export class TooManyRequestsError extends AppError {
  override name = 'TooManyRequestsError';
  override readonly status = 429;
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
  override readonly status = 503;
  constructor(
    message?: string,
    readonly retryAfterSeconds = 5,
  ) {
    super(message);
  }
}
