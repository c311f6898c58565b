/**
 * Index of the last value of `sorted` (ascending) at or before `pos`; 0 when
 * every value is after it, so callers whose first value is 0 need no check.
 */
export function lastAtOrBefore(sorted: ArrayLike<number>, pos: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sorted[mid]! <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
