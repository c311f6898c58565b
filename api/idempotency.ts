import type { Context } from 'hono';
import { ConflictError, UnprocessableError, ValidationError } from '../shared/errors.js';
import type { IdempotencyStore } from '../shared/store/idempotency-store.js';
import type { AppEnv } from './context.js';
import { handleError } from './errors.js';
import { FormDigest } from './form-digest.js';
import type { PartTap } from './multipart.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
/** Response headers a replay repeats. */
const KEPT_HEADERS = ['location', 'etag'];
/** Seconds a repeat should wait while the first request with its key still runs (an upload takes a few). */
export const IN_PROGRESS_RETRY_AFTER_SECONDS = 2;
/** Outcomes a retry could change are not kept: the key is freed instead. */
const NOT_KEPT = new Set([408, 429]);

/** A POST or PATCH that may carry an `Idempotency-Key`. */
export interface IdempotentRequest {
  store: IdempotencyStore;
  /** Reads the body of a repeat through `tap` only: nothing is staged or changed. */
  readBody(tap: PartTap): Promise<void>;
  /** The request itself; it feeds its body's parts to `tap` (when given) as it parses. */
  run(tap: PartTap | undefined): Promise<Response>;
}

/**
 * Runs a POST or PATCH at most once per `Idempotency-Key` and workspace. The
 * first request's status and body are kept for 24 hours; a repeat of the same
 * request (method, path and body digest) gets them again with
 * `Idempotent-Replayed: true` and changes nothing; the same key with another
 * request is a 422; a repeat while the first still runs is a 409. Outcomes a
 * retry could change (5xx, 408, 429, or a body never fully read) free the key
 * instead of being kept. The body's fingerprint is a {@link FormDigest} that
 * the parse feeds; the request knows it only as a tap.
 */
export async function idempotent(c: Context<AppEnv>, { store, readBody, run }: IdempotentRequest): Promise<Response> {
  const key = c.req.header(IDEMPOTENCY_HEADER);
  if (key === undefined) return run(undefined);
  if (!KEY_PATTERN.test(key)) throw new ValidationError({ [IDEMPOTENCY_HEADER]: 'must be 1 to 255 printable ASCII characters' });
  const workspaceId = c.get('principal').workspaceId;
  const request = `${c.req.method} ${c.req.path}`;

  const found = await store.claim(workspaceId, key);
  if (found?.state === 'running') {
    throw new ConflictError('A request with this Idempotency-Key is still being processed; retry shortly', IN_PROGRESS_RETRY_AFTER_SECONDS);
  }
  if (found) {
    const repeat = new FormDigest();
    await readBody(repeat);
    if (found.fingerprint !== `${request} ${repeat.value()}`) {
      throw new UnprocessableError('This Idempotency-Key was already used for a different request');
    }
    return new Response(found.body, {
      status: found.status,
      headers: { ...found.headers, 'Content-Type': 'application/json', 'Idempotent-Replayed': 'true' },
    });
  }

  const digest = new FormDigest();
  let res: Response;
  try {
    res = await run(digest);
  } catch (err) {
    res = handleError(err, c);
  }
  const fingerprint = digest.value();
  if (fingerprint === undefined || res.status >= 500 || NOT_KEPT.has(res.status)) {
    await store.release(workspaceId, key);
    return res;
  }
  const headers = Object.fromEntries(KEPT_HEADERS.flatMap((h) => (res.headers.has(h) ? [[h, res.headers.get(h)!]] : [])));
  await store.complete(workspaceId, key, {
    state: 'done',
    fingerprint: `${request} ${fingerprint}`,
    status: res.status,
    body: await res.clone().text(),
    headers,
  });
  return res;
}
