/**
 * Which spans overlap a time window, without reading them all: spans in
 * start order, cut into blocks of BLOCK, each with the latest end among its
 * spans. A query finds the last span starting before the window's end by
 * binary search and reads only the blocks whose latest end reaches the
 * window's start, so a zoom or brush step costs the visible spans plus one
 * comparison per block, however long some spans (open ones run to now) are.
 */
import { sortedIndex } from '../sorted-index.ts';
import type { Span } from './spans.ts';

const BLOCK = 64;

export class SpanIndex {
  private readonly starts: Float64Array;
  private readonly ends: Float64Array;
  private readonly blockEnd: Float64Array;

  constructor(readonly spans: readonly Span[]) {
    const n = spans.length;
    this.starts = new Float64Array(n);
    this.ends = new Float64Array(n);
    this.blockEnd = new Float64Array(Math.ceil(n / BLOCK)).fill(-Infinity);
    for (let i = 0; i < n; i++) {
      const s = spans[i]!;
      this.starts[i] = s.start;
      this.ends[i] = s.end;
      const b = (i / BLOCK) | 0;
      if (s.end > this.blockEnd[b]!) this.blockEnd[b] = s.end;
    }
  }

  /** Calls `fn` with each span overlapping [from, to], in start order; `fn` returning false stops. */
  visit(from: number, to: number, fn: (span: Span) => boolean | void): void {
    const hi = sortedIndex(this.starts, to, (s, x) => s <= x);
    for (let b = 0; b * BLOCK < hi; b++) {
      if (this.blockEnd[b]! < from) continue;
      const last = Math.min(hi, (b + 1) * BLOCK);
      for (let i = b * BLOCK; i < last; i++) if (this.ends[i]! >= from && fn(this.spans[i]!) === false) return;
    }
  }

  /** The spans overlapping [from, to], in start order. */
  query(from: number, to: number): Span[] {
    const out: Span[] = [];
    this.visit(from, to, (s) => void out.push(s));
    return out;
  }
}
