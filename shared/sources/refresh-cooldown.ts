import { TooManyRequestsError } from '../errors.js';
import type { StoredSource } from '../store/kb-records.js';

/**
 * Seconds until a ready URL source may be refreshed by hand again, or 0. The
 * cooldown runs from its last fetch (`checkedAt`, else its last change), so
 * a client looping on refresh costs the origin at most one fetch per
 * cooldown. A failed source has none: its refresh is a retry.
 */
export function refreshCooldownLeft(source: StoredSource, cooldownMs: number, now: Date): number {
  if (cooldownMs <= 0 || source.status !== 'ready') return 0;
  const last = Date.parse(source.checkedAt ?? source.updatedAt);
  if (Number.isNaN(last)) return 0;
  const leftMs = last + cooldownMs - now.getTime();
  return leftMs > 0 ? Math.ceil(leftMs / 1000) : 0;
}

/** 429 with Retry-After while the source's refresh cooldown (REFRESH_COOLDOWN_SECONDS) runs. */
export function assertRefreshAllowed(source: StoredSource, cooldownMs: number, now: Date): void {
  const left = refreshCooldownLeft(source, cooldownMs, now);
  if (left === 0) return;
  throw new TooManyRequestsError(
    left,
    `The source was fetched less than ${Math.round(cooldownMs / 1000)} s ago; refresh it again after ${left} s`,
  );
}
