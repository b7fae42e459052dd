/**
 * Latency per action: from a request's first send to its final result, over
 * the requests that have one. Percentiles are nearest-rank: the p-th
 * percentile of n sorted durations is the ceil(p/100 * n)-th smallest (1-based),
 * so it is always a duration that was measured, never an interpolation.
 */
import { FLAG, type Span } from './spans.ts';

export interface LatencyRow {
  /** `surfaceId/actionId`. */
  action: string;
  count: number;
  p50: number;
  p95: number;
  max: number;
  /** Requests of this action still in flight (not counted above). */
  open: number;
  /** Final results that failed (counted above). */
  failed: number;
}

export function nearestRank(sorted: ArrayLike<number>, p: number): number {
  if (!sorted.length) return NaN;
  const k = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(k, sorted.length) - 1]!;
}

/** One row per action of the client lanes' spans, by action name. */
export function latencyTable(spans: Iterable<Span>): LatencyRow[] {
  const by = new Map<string, { d: number[]; open: number; failed: number }>();
  for (const s of spans) {
    if (s.lane === 0) continue;
    const action = `${s.surfaceId}/${s.actionId}`;
    let e = by.get(action);
    if (!e) by.set(action, (e = { d: [], open: 0, failed: 0 }));
    if (s.durations.result !== undefined) {
      e.d.push(s.durations.result);
      if (s.code) e.failed++;
    } else if (s.flags & FLAG.open) e.open++;
  }
  const rows: LatencyRow[] = [];
  for (const [action, e] of by) {
    const d = Float64Array.from(e.d).sort();
    rows.push({ action, count: d.length, p50: nearestRank(d, 50), p95: nearestRank(d, 95), max: d.length ? d[d.length - 1]! : NaN, open: e.open, failed: e.failed });
  }
  return rows.sort((a, b) => (a.action < b.action ? -1 : a.action > b.action ? 1 : 0));
}

/**
 * The latency table kept up to date span by span (the live layout, live.ts):
 * per action, its durations in a sorted array (binary search and splice to
 * add or take one out), so a row's p50, p95 and max are read off by rank and
 * a new result costs a search and a splice, never a sort of the session.
 * `rows()` equals `latencyTable` over the same spans.
 */
export class LatencyBook {
  private readonly by = new Map<string, { d: number[]; open: number; failed: number; n: number }>();

  add(s: Span): void {
    this.change(s, 1);
  }

  remove(s: Span): void {
    this.change(s, -1);
  }

  private change(s: Span, k: 1 | -1): void {
    if (s.lane === 0) return;
    const action = `${s.surfaceId}/${s.actionId}`;
    let e = this.by.get(action);
    if (!e) this.by.set(action, (e = { d: [], open: 0, failed: 0, n: 0 }));
    e.n += k;
    const d = s.durations.result;
    if (d !== undefined) {
      const i = lowerBound(e.d, d);
      if (k > 0) e.d.splice(i, 0, d);
      else if (e.d[i] === d) e.d.splice(i, 1);
      if (s.code) e.failed += k;
    } else if (s.flags & FLAG.open) e.open += k;
    if (e.n <= 0) this.by.delete(action);
  }

  rows(): LatencyRow[] {
    const rows: LatencyRow[] = [];
    for (const [action, e] of this.by) rows.push({ action, count: e.d.length, p50: nearestRank(e.d, 50), p95: nearestRank(e.d, 95), max: e.d.length ? e.d[e.d.length - 1]! : NaN, open: e.open, failed: e.failed });
    return rows.sort((a, b) => (a.action < b.action ? -1 : a.action > b.action ? 1 : 0));
  }
}

function lowerBound(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The table over the requests sent within [from, to] (a brushed range): the
 * spans starting in it, found through the span index, so it reads the
 * requests of the range and nothing before or after it.
 */
export function windowLatency(index: { visit(from: number, to: number, fn: (s: Span) => boolean | void): void }, from: number, to: number): LatencyRow[] {
  const inRange: Span[] = [];
  index.visit(from, to, (s) => {
    if (s.start >= from) inRange.push(s);
  });
  return latencyTable(inRange);
}
