import type { KeySpace } from '../keys.js';
import { defineScript } from './script.js';

/** A new knowledge base entered in its workspace's index, within the quota. */
export interface AddKnowledgeBaseInput {
  workspaceId: string;
  kbId: string;
  /** Its creation time (ms), the index's score. */
  score: number;
  /** The quota of knowledge bases; none: unlimited. */
  max?: number;
}

/** Counts a workspace's knowledge bases and enters a new one in one step. */
export const addKnowledgeBaseScript = defineScript({
  name: 'wsAddKnowledgeBase',
  file: 'addKnowledgeBase',
  keys: ['kbs'],
  build: (i: AddKnowledgeBaseInput, k) => ({
    keys: { kbs: k.workspaceKbs(i.workspaceId) },
    args: { kbId: i.kbId, score: i.score, max: i.max },
  }),
  replies: { ok: {}, full: { count: 'int' } },
});

/** What a reservation is checked against and takes. */
export interface ReserveQuotaInput {
  workspaceId: string;
  id: string;
  /** The holds' epoch read before `held` was summed. */
  seen: number;
  held: { bytes: number; sources: number };
  limits: { bytes?: number; sources?: number };
  adding: { bytes: number; sources: number };
  /** Grant the sources that fit rather than all or nothing (a site's pages). */
  partial: boolean;
  /** The caller's last attempt: refuse or grant on what is counted, never ask for a fresh read. */
  last?: boolean;
  /** How long the reservation lives unless settled (ms). */
  ttlMs: number;
  /** How long a settled commit is counted for readers that summed before it (ms). */
  keepMs: number;
}

const holdKeys = (workspaceId: string, k: KeySpace) => ({
  holds: k.quotaHolds(workspaceId),
  live: k.quotaHoldsLive(workspaceId),
  settled: k.quotaHoldsSettled(workspaceId),
});

/** Checks the stored-bytes and in-flight quotas and takes a reservation, in one step. */
export const reserveQuotaScript = defineScript({
  name: 'wsReserveQuota',
  file: 'reserveQuota',
  keys: ['holds', 'live', 'settled'],
  build: (i: ReserveQuotaInput, k) => ({
    keys: holdKeys(i.workspaceId, k),
    args: { id: i.id, seen: i.seen, held: i.held, limits: i.limits, adding: i.adding, partial: i.partial, last: i.last ?? false, ttlMs: i.ttlMs, keepMs: i.keepMs },
  }),
  replies: { ok: { granted: 'int' }, in_flight: { used: 'int', recount: 'int' }, bytes: { used: 'int', recount: 'int' }, stale: {} },
});

/** Ends a reservation: settled after a commit (or one that may have happened), else given back. */
export const settleQuotaScript = defineScript({
  name: 'wsSettleQuota',
  file: 'settleQuota',
  keys: ['holds', 'live', 'settled'],
  build: (i: { workspaceId: string; id: string; settle: boolean; keepMs: number }, k) => ({
    keys: holdKeys(i.workspaceId, k),
    args: { id: i.id, settle: i.settle, keepMs: i.keepMs },
  }),
  replies: { ok: {}, gone: {} },
});
