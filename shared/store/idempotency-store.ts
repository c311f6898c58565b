import { createHash } from 'node:crypto';
import type { RedisClient } from '../redis.js';
import type { KeySpace } from './keys.js';

/** The outcome of a request made with an Idempotency-Key, kept so a repeat gets it again. */
export interface IdempotentOutcome {
  state: 'done';
  /** Method, path and body digest of the first request. */
  fingerprint: string;
  status: number;
  body: string;
  headers: Record<string, string>;
}

export type IdempotentRecord = { state: 'running' } | IdempotentOutcome;

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
 * `SET NX` claims it, so of two concurrent first requests exactly one runs.
 */
export class IdempotencyStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
  ) {}

  private key(workspaceId: string, idempotencyKey: string): string {
    return this.keys.idempotency(workspaceId, createHash('sha256').update(idempotencyKey, 'utf8').digest('hex'));
  }

  /** Claims the key for a new request: null when claimed, else what is already recorded. */
  async claim(workspaceId: string, idempotencyKey: string): Promise<IdempotentRecord | null> {
    const key = this.key(workspaceId, idempotencyKey);
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimed = await this.redis.set(key, JSON.stringify({ state: 'running' }), 'EX', RUNNING_TTL_SECONDS, 'NX');
      if (claimed === 'OK') return null;
      const found = await this.redis.get(key);
      // It expired between the two commands: claim again.
      if (found !== null) return JSON.parse(found) as IdempotentRecord;
    }
    return { state: 'running' };
  }

  /** Records the outcome for replays. */
  async complete(workspaceId: string, idempotencyKey: string, outcome: IdempotentOutcome): Promise<void> {
    await this.redis.set(this.key(workspaceId, idempotencyKey), JSON.stringify(outcome), 'EX', OUTCOME_TTL_SECONDS);
  }

  /** Frees the key, so that a retry runs the request again. */
  async release(workspaceId: string, idempotencyKey: string): Promise<void> {
    await this.redis.del(this.key(workspaceId, idempotencyKey));
  }
}
