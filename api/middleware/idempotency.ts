import type { Context } from 'hono';
import { ConflictError, isQuotaRefusal, TooManyRequestsError, UnprocessableError, ValidationError } from '../../shared/errors.js';
import type { IdempotencyStore, IdempotentOutcome } from '../../shared/store/idempotency-store.js';
import type { AppEnv } from '../context.js';
import { handleError } from './errors.js';
import { FormDigest } from '../http/form-digest.js';
import type { PartTap } from '../http/multipart.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
/** Response headers a replay repeats. */
const KEPT_HEADERS = ['location', 'etag'];
/** Seconds a repeat should wait while the first request with its key still runs (an upload takes a few). */
export const IN_PROGRESS_RETRY_AFTER_SECONDS = 2;
/** Outcomes a retry could change are not kept: the key is freed instead. */
const NOT_KEPT = new Set([408, 429]);

/** Bounds on what Idempotency-Keys keep (IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE, IDEMPOTENCY_MAX_BODY_BYTES). */
export interface IdempotencyLimits {
  /** Live keys (running or replayable) one workspace may hold; one more is a 429. */
  maxKeysPerWorkspace: number;
  /** Largest response body kept verbatim; a larger success keeps only its knowledge base's id. */
  maxBodyBytes: number;
}

/** A POST or PATCH that may carry an `Idempotency-Key`. */
export interface IdempotentRequest {
  store: IdempotencyStore;
  limits: IdempotencyLimits;
  /** Answers a replay whose body was too large to keep: the knowledge base as it is now, with `status`. */
  render(kbId: string, status: number): Promise<Response>;
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
 *
 * What is kept is bounded: a body over `limits.maxBodyBytes` is not stored;
 * a success keeps its knowledge base's id and a replay renders it as it is
 * now, and any other outcome that large frees the key. Each workspace holds
 * at most `limits.maxKeysPerWorkspace` live keys: past it a new key is a 429
 * until one expires, and the request does not run.
 */
export async function idempotent(c: Context<AppEnv>, { store, limits, render, readBody, run }: IdempotentRequest): Promise<Response> {
  const key = c.req.header(IDEMPOTENCY_HEADER);
  if (key === undefined) return run(undefined);
  if (!KEY_PATTERN.test(key)) throw new ValidationError({ [IDEMPOTENCY_HEADER]: 'must be 1 to 255 printable ASCII characters' });
  const workspaceId = c.get('principal').workspaceId;
  const request = `${c.req.method} ${c.req.path}`;

  const claim = await store.claim(workspaceId, key, limits.maxKeysPerWorkspace);
  if (claim.kind === 'full') {
    throw new TooManyRequestsError(
      Math.ceil(claim.retryInMs / 1000),
      `This workspace already holds ${limits.maxKeysPerWorkspace} Idempotency-Keys from the last 24 hours; retry when one expires, or send the request without one`,
    );
  }
  if (claim.kind === 'found') {
    const found = claim.record;
    if (found.state === 'running') {
      throw new ConflictError('A request with this Idempotency-Key is still being processed; retry shortly', IN_PROGRESS_RETRY_AFTER_SECONDS);
    }
    const repeat = new FormDigest();
    await readBody(repeat);
    if (found.fingerprint !== `${request} ${repeat.value()}`) {
      throw new UnprocessableError('This Idempotency-Key was already used for a different request');
    }
    const replay = found.body === undefined && found.kbId !== undefined ? await render(found.kbId, found.status) : new Response(found.body ?? null, { status: found.status });
    const headers = new Headers(replay.headers);
    // The kept Location and ETag, unless a fresh render has the knowledge base's current ETag.
    for (const [name, value] of Object.entries(found.headers)) if (!headers.has(name)) headers.set(name, value);
    headers.set('Content-Type', 'application/json');
    headers.set('Idempotent-Replayed', 'true');
    return new Response(replay.body, { status: found.status, headers });
  }

  const digest = new FormDigest();
  let res: Response;
  try {
    res = await run(digest);
  } catch (err) {
    res = handleError(err, c);
    // A quota refusal may pass once room is made: the key is freed, not kept.
    if (isQuotaRefusal(err)) {
      await store.release(workspaceId, key);
      return res;
    }
  }
  const fingerprint = digest.value();
  if (fingerprint === undefined || res.status >= 500 || NOT_KEPT.has(res.status)) {
    await store.release(workspaceId, key);
    return res;
  }
  const outcome = await keptOutcome(res, `${request} ${fingerprint}`, limits.maxBodyBytes);
  if (outcome === undefined) await store.release(workspaceId, key);
  else await store.complete(workspaceId, key, outcome);
  return res;
}

/** The outcome to keep for `res`, within the body cap; undefined when nothing small enough can stand for it. */
async function keptOutcome(res: Response, fingerprint: string, maxBodyBytes: number): Promise<IdempotentOutcome | undefined> {
  const headers = Object.fromEntries(KEPT_HEADERS.flatMap((h) => (res.headers.has(h) ? [[h, res.headers.get(h)!]] : [])));
  const body = await res.clone().text();
  const outcome = { state: 'done' as const, fingerprint, status: res.status, headers };
  if (Buffer.byteLength(body, 'utf8') <= maxBodyBytes) return { ...outcome, body };
  if (res.status >= 300) return undefined;
  const kbId = (JSON.parse(body) as { kbId?: unknown }).kbId;
  return typeof kbId === 'string' ? { ...outcome, kbId } : undefined;
}
