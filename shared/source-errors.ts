/**
 * Why a source ended `failed`. The codes are part of the public contract: they
 * appear in `files[].error.code` of a knowledge base.
 */
export const SOURCE_ERROR_CODES = [
  'unsupported_media_type',
  'file_too_large',
  'fetch_blocked',
  'fetch_failed',
  'http_status',
  'timeout',
  'encrypted',
  'corrupt',
  'no_text',
  'too_complex',
  'ocr_unavailable',
  'internal',
] as const;

export type SourceErrorCode = (typeof SOURCE_ERROR_CODES)[number];

/**
 * A failure of one source, with a code a client can branch on and a message a
 * user can act on. `retryable` tells the worker whether another attempt may
 * succeed (a reset connection, a 503) or not (a blocked address, a corrupt file).
 */
export class SourceError extends Error {
  override readonly name = 'SourceError';
  /** How long a 429 or 503 answer asked to wait (its Retry-After), ms, when it said. */
  retryAfterMs?: number;

  constructor(
    readonly code: SourceErrorCode,
    message: string,
    readonly retryable = false,
  ) {
    super(message);
  }
}

export function isSourceError(err: unknown): err is SourceError {
  return err instanceof SourceError;
}

const ALLOCATION_FAILED = /Array buffer allocation failed|could not allocate memory|Cannot allocate Wasm memory/i;

/**
 * True for an error a refused memory allocation raised: an ArrayBuffer or a
 * WebAssembly memory the OS would not map (the sandbox's address-space
 * limit). Matched on the message, because a library may pass the error on
 * under a class of its own (pdf.js does).
 */
export function isAllocationFailure(err: unknown): boolean {
  return err instanceof Error && ALLOCATION_FAILED.test(err.message);
}
