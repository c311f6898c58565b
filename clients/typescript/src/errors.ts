import type { components } from './schema.js';

export type ErrorBody = components['schemas']['ErrorBody'];

/** An error answer of the API, with its status and the contract's error body. */
export class KbApiError extends Error {
  override name = 'KbApiError';
  constructor(
    readonly status: number,
    readonly body: ErrorBody | undefined,
    readonly headers: Headers,
  ) {
    super(`${status} ${body?.error ?? ''}: ${body?.message ?? 'no error body'}${body?.validationErrors ? ` ${JSON.stringify(body.validationErrors)}` : ''}`);
  }
}

/** What every call of the generated client (`client.api`) resolves to. */
export interface ApiResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of a call of the generated client, or a {@link KbApiError} for an
 * error answer: `const usage = unwrap(await kb.api.GET('/v1/usage'))`. A
 * success without a body (204) gives `undefined`.
 */
export function unwrap<T>(r: ApiResult<T>): T {
  if (r.response.ok) return r.data as T;
  throw new KbApiError(r.response.status, r.error as ErrorBody | undefined, r.response.headers);
}
