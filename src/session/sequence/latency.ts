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
