/**
 * The one binary search of the repository: the first index k in [lo, hi)
 * whose element is not below `x` (its "lower bound"), in a list sorted by
 * `before`. Every caller keeps its list sorted by the same `before` it
 * passes here; the result is then where `x` goes to keep it sorted, after
 * any elements equal to it when `before` is strict.
 */
export function sortedIndex<T, X = T>(
  xs: ArrayLike<T>,
  x: X,
  before: (element: T, x: X) => boolean,
  lo = 0,
  hi = xs.length,
): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(xs[mid]!, x)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** `sortedIndex` over numbers in ascending order. */
export function sortedIndexOfNumber(xs: ArrayLike<number>, x: number, lo = 0, hi = xs.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
