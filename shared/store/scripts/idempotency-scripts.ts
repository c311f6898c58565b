import { defineScript } from './script.js';

/** API: claims an Idempotency-Key for a new request, unless it is recorded or its workspace holds the most live keys it may. */
export const claimIdempotencyKeyScript = defineScript({
  name: 'idempotencyClaim',
  file: 'claimIdempotencyKey',
  keys: ['record', 'index'],
  build: (i: { workspaceId: string; keyHash: string; runningTtlMs: number; maxKeys: number }, k) => ({
    keys: { record: k.idempotency(i.workspaceId, i.keyHash), index: k.idempotencyIndex(i.workspaceId) },
    args: { keyHash: i.keyHash, runningTtlMs: i.runningTtlMs, maxKeys: i.maxKeys },
  }),
  replies: { claimed: {}, found: { record: 'str' }, full: { retryInMs: 'int' } },
});

/** API: records the outcome of a claimed key and moves its index entry to the outcome's expiry. */
export const completeIdempotencyKeyScript = defineScript({
  name: 'idempotencyComplete',
  file: 'completeIdempotencyKey',
  keys: ['record', 'index'],
  build: (i: { workspaceId: string; keyHash: string; record: string; ttlMs: number }, k) => ({
    keys: { record: k.idempotency(i.workspaceId, i.keyHash), index: k.idempotencyIndex(i.workspaceId) },
    args: { keyHash: i.keyHash, record: i.record, ttlMs: i.ttlMs },
  }),
  replies: { ok: {} },
});
