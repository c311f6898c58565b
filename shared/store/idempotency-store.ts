import { createHash } from 'node:crypto';
import type { RedisClient } from '../redis/redis.js';
import { runScript, withCommands, type StoreRedis } from './commands.js';
import type { KeySpace } from './keys.js';
import { claimIdempotencyKeyScript, completeIdempotencyKeyScript } from './scripts/idempotency-scripts.js';

/**
 * The outcome of a request made with an Idempotency-Key, kept so a repeat gets
 * it again. A body up to the store's cap is kept as it was; a larger success
 * keeps only the knowledge base's id (`kbId`) and is rendered again on replay.
 */
export interface IdempotentOutcome {
  state: 'done';
  /** Method, path and body digest of the first request. */
  fingerprint: string;
  status: number;
  /** The response body, when it was within the cap. */
  body?: string;
  /** The knowledge base a larger success answered with, read again on replay. */
  kbId?: string;
  headers: Record<string, string>;
}

export type IdempotentRecord = { state: 'running' } | IdempotentOutcome;

/** What {@link IdempotencyStore.claim} found. */
export type ClaimResult =
  | { kind: 'claimed' }
  | { kind: 'found'; record: IdempotentRecord }
  /** The workspace holds its most live keys; one expires in `retryInMs`. */
  | { kind: 'full'; retryInMs: number };

/**
 * How long a claim lasts while its request runs. It outlives the longest
 * request the server lets run, and frees the key if the process dies.
 */
export const RUNNING_TTL_SECONDS = 600;
/** How long an outcome is replayed. */
export const OUTCOME_TTL_SECONDS = 24 * 3600;

/**
 * Idempotency keys, per workspace, stored under the SHA-256 of the key (the
 * key is the client's and may be anything printable). One JSON value per key:
 * the claim script sets it only when absent, so of two concurrent first
 * requests exactly one runs. A sorted set per workspace counts its live
 * records, so a client sending new keys meets `maxKeys` instead of filling Redis.
 */
export class IdempotencyStore {
  private readonly redis: StoreRedis;

  constructor(
    redis: RedisClient,
    private readonly keys: KeySpace,
  ) {
    this.redis = withCommands(redis);
  }

  private hash(idempotencyKey: string): string {
    return createHash('sha256').update(idempotencyKey, 'utf8').digest('hex');
  }

  /** Claims the key for a new request, or says what is recorded, or that the workspace has `maxKeys` live keys. */
  async claim(workspaceId: string, idempotencyKey: string, maxKeys: number): Promise<ClaimResult> {
    const reply = await runScript(this.redis, this.keys, claimIdempotencyKeyScript, {
      workspaceId,
      keyHash: this.hash(idempotencyKey),
      runningTtlMs: RUNNING_TTL_SECONDS * 1000,
      maxKeys,
    });
    if (reply.kind === 'found') return { kind: 'found', record: JSON.parse(reply.record) as IdempotentRecord };
    return reply;
  }

  /** Records the outcome for replays. */
  async complete(workspaceId: string, idempotencyKey: string, outcome: IdempotentOutcome): Promise<void> {
    await runScript(this.redis, this.keys, completeIdempotencyKeyScript, {
      workspaceId,
      keyHash: this.hash(idempotencyKey),
      record: JSON.stringify(outcome),
      ttlMs: OUTCOME_TTL_SECONDS * 1000,
    });
  }

  /** Frees the key, so that a retry runs the request again. */
  async release(workspaceId: string, idempotencyKey: string): Promise<void> {
    const keyHash = this.hash(idempotencyKey);
    // One hash tag for both keys: a single-slot transaction on a cluster too.
    await this.redis.multi().del(this.keys.idempotency(workspaceId, keyHash)).zrem(this.keys.idempotencyIndex(workspaceId), keyHash).exec();
  }

  /** Live Idempotency-Key records of the workspace (running and done). */
  async count(workspaceId: string): Promise<number> {
    return this.redis.zcount(this.keys.idempotencyIndex(workspaceId), Date.now(), '+inf');
  }
}
