import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares secrets in constant time (hashing first makes the lengths equal): the admin token, the board's and the metrics' credentials. */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}
