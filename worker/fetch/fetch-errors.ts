import { STATUS_CODES } from 'node:http';
import { stripBrackets } from '../../shared/net/address-policy.js';
import { SourceError, isSourceError } from '../../shared/source-errors.js';

const TLS_ERROR = /^(ERR_TLS_|ERR_SSL_|UNABLE_TO_|CERT_)|_CERT|SELF_SIGNED|_SIGNATURE/;

/**
 * A non-2xx final answer; 5xx, 408 and 429 are worth another attempt. A
 * `Retry-After` (seconds or an HTTP date) is kept as `retryAfterMs`.
 */
export function statusError(status: number, retryAfter?: string): SourceError {
  const text = `the server answered ${status} ${STATUS_CODES[status] ?? ''}`.trim();
  const err = new SourceError('http_status', text, status >= 500 || status === 408 || status === 429);
  const waitMs = retryAfter === undefined ? undefined : retryAfterMs(retryAfter);
  if (waitMs !== undefined) err.retryAfterMs = waitMs;
  return err;
}

/** A Retry-After header's wait in ms (delta-seconds or an HTTP date); undefined when unreadable. */
function retryAfterMs(value: string): number | undefined {
  const trimmed = value.trim();
  if (/^\d{1,9}$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Maps anything thrown to a SourceError whose message names the host at most: no addresses, no stack traces. */
export function toSourceError(err: unknown, deadline: AbortSignal, hostname: string, timeoutMs: number): SourceError {
  if (isSourceError(err)) return err;
  const host = stripBrackets(hostname);
  const code = errorCode(err) ?? '';
  const fail = (message: string, retryable: boolean) => new SourceError('fetch_failed', message, retryable);
  if (deadline.aborted || /^UND_ERR_(HEADERS|BODY|CONNECT)_TIMEOUT$/.test(code)) {
    return new SourceError('timeout', `the fetch did not finish within ${timeoutMs / 1000} s`, true);
  }
  if (code === 'ENOTFOUND') return fail(`the host name ${host} could not be resolved`, false);
  if (code === 'EAI_AGAIN') return fail(`the host name ${host} could not be resolved right now`, true);
  if (TLS_ERROR.test(code)) return fail(`the secure connection to ${host} failed (certificate or TLS error)`, false);
  if (/HEADERS?_OVERFLOW$/.test(code)) return fail(`the server at ${host} sent headers that are too large`, false);
  if (code.startsWith('Z_')) {
    return new SourceError('corrupt', 'the server sent a body that could not be decompressed', false);
  }
  // Refused, reset, unreachable and protocol errors share one message: no port-state oracle.
  return fail(`the connection to ${host} failed`, true);
}

/** The first error code along the `cause` chain (undici wraps socket errors in UND_ERR_SOCKET). */
function errorCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    const { code, cause } = e as { code?: unknown; cause?: unknown };
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') return code;
    e = cause;
  }
  return undefined;
}
