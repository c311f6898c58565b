import type { Context } from 'hono';
import { ConflictError, UnprocessableError, ValidationError } from '../shared/errors.js';
import type { IdempotencyStore } from '../shared/store/idempotency-store.js';
import type { AppEnv } from './context.js';
import { handleError } from './errors.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
/** Response headers a replay repeats. */
const KEPT_HEADERS = ['location', 'etag'];
/** Outcomes a retry could change are not kept: the key is freed instead. */
const NOT_KEPT = new Set([408, 429]);

/** Filled by the request's own parse: the digest of its body, once known. */
export interface RequestDigest {
  value?: string;
}

/**
 * Runs a POST or PATCH at most once per `Idempotency-Key` and workspace. The
 * first request's status and body are kept for 24 hours; a repeat of the same
 * request (method, path and body digest) gets them again with
 * `Idempotent-Replayed: true` and changes nothing; the same key with another
 * request is a 422; a repeat while the first still runs is a 409. Outcomes a
 * retry could change (5xx, 408, 429, or a body never fully read) free the key
 * instead of being kept.
 *
 * @param digestOnly reads the body of a repeat only to learn its digest
 * @param run the request itself; it fills `digest` as it parses the body
 */
export async function idempotent(
  c: Context<AppEnv>,
  store: IdempotencyStore,
  digestOnly: () => Promise<string>,
  run: (digest: RequestDigest) => Promise<Response>,
): Promise<Response> {
  const key = c.req.header(IDEMPOTENCY_HEADER);
  if (key === undefined) return run({});
  if (!KEY_PATTERN.test(key)) throw new ValidationError({ [IDEMPOTENCY_HEADER]: 'must be 1 to 255 printable ASCII characters' });
  const workspaceId = c.get('principal').workspaceId;
  const request = `${c.req.method} ${c.req.path}`;

  const found = await store.claim(workspaceId, key);
  if (found?.state === 'running') throw new ConflictError('A request with this Idempotency-Key is still being processed; retry shortly');
  if (found) {
    if (found.fingerprint !== `${request} ${await digestOnly()}`) {
      throw new UnprocessableError('This Idempotency-Key was already used for a different request');
    }
    return new Response(found.body, {
      status: found.status,
      headers: { ...found.headers, 'Content-Type': 'application/json', 'Idempotent-Replayed': 'true' },
    });
  }

  const digest: RequestDigest = {};
  let res: Response;
  try {
    res = await run(digest);
  } catch (err) {
    res = handleError(err, c);
  }
  if (digest.value === undefined || res.status >= 500 || NOT_KEPT.has(res.status)) {
    await store.release(workspaceId, key);
    return res;
  }
  const headers = Object.fromEntries(KEPT_HEADERS.flatMap((h) => (res.headers.has(h) ? [[h, res.headers.get(h)!]] : [])));
  await store.complete(workspaceId, key, {
    state: 'done',
    fingerprint: `${request} ${digest.value}`,
    status: res.status,
    body: await res.clone().text(),
    headers,
  });
  return res;
}
