/**
 * Which spans overlap a time window, without reading them all, and kept up
 * to date one span at a time.
 *
 * Settled spans sit in `compareSpans` order (by start) in chunks of at most
 * CHUNK, each with its first start and its latest end. A query finds the
 * last chunk starting before the window's end by binary search and reads
 * only the chunks whose latest end reaches the window's start, so a zoom or
 * brush step costs the visible spans plus one comparison per chunk, however
 * long some spans are. Spans in flight run to now and would make every
 * chunk that holds one look long: they are kept apart, in a short list of
 * their own, and merged into the visit in order.
 *
 * Inserting or removing a span touches one chunk (a binary search, a splice
 * of at most CHUNK, that chunk's latest end again): the live layout
 * (live.ts) pays for what changed, not for the whole session.
 */
import { sortedIndex } from '../sorted-index.ts';
import { compareSpans, FLAG, type Span } from './spans.ts';

const CHUNK = 128;

interface Chunk {
  spans: Span[];
  /** The latest end of its spans. */
  end: number;
}

const isOpen = (s: Span) => (s.flags & FLAG.open) !== 0;

export class SpanIndex {
  private chunks: Chunk[] = [];
  /** Spans in flight, in order. */
  private open: Span[] = [];
  private n = 0;

  constructor(spans: Iterable<Span> = []) {
    // Already in order (a layout's spans): appended chunk by chunk.
    let prev: Span | undefined;
    for (const s of spans) {
      if (prev && compareSpans(prev, s) > 0) throw new Error('SpanIndex: spans out of order');
      prev = s;
      if (isOpen(s)) this.open.push(s);
      else {
        let last = this.chunks[this.chunks.length - 1];
        if (!last || last.spans.length >= CHUNK) this.chunks.push((last = { spans: [], end: -Infinity }));
        last.spans.push(s);
        if (s.end > last.end) last.end = s.end;
      }
      this.n++;
    }
  }

  get size(): number {
    return this.n;
  }

  /** Adds `s` in its place. Its `start`, lane, client, request id and whether it is open must stay as they are while it is in. */
  insert(s: Span): void {
    this.n++;
    if (isOpen(s)) {
      this.open.splice(sortedIndex(this.open, s, (a, x) => compareSpans(a, x) < 0), 0, s);
      return;
    }
    const chunks = this.chunks;
    // The last chunk whose first span is not after `s` (or the first chunk).
    let c = sortedIndex(chunks, s, (ch, x) => compareSpans(ch.spans[0]!, x) <= 0) - 1;
    if (c < 0) c = 0;
    let chunk = chunks[c];
    if (!chunk) {
      chunks.push({ spans: [s], end: s.end });
      return;
    }
    chunk.spans.splice(sortedIndex(chunk.spans, s, (a, x) => compareSpans(a, x) < 0), 0, s);
    if (s.end > chunk.end) chunk.end = s.end;
    if (chunk.spans.length > CHUNK) {
      // Split in two halves, each with its own latest end.
      const tail = chunk.spans.splice(CHUNK >> 1);
      chunk.end = latestEnd(chunk.spans);
      chunks.splice(c + 1, 0, { spans: tail, end: latestEnd(tail) });
    }
  }

  /** Removes `s` (the same object that was inserted); false when it was not in. */
  remove(s: Span): boolean {
    if (isOpen(s)) {
      const i = this.open.indexOf(s, sortedIndex(this.open, s, (a, x) => compareSpans(a, x) < 0));
      if (i < 0) return false;
      this.open.splice(i, 1);
      this.n--;
      return true;
    }
    const chunks = this.chunks;
    const c = sortedIndex(chunks, s, (ch, x) => compareSpans(ch.spans[0]!, x) <= 0) - 1;
    const chunk = chunks[c];
    if (!chunk) return false;
    const i = chunk.spans.indexOf(s, sortedIndex(chunk.spans, s, (a, x) => compareSpans(a, x) < 0));
    if (i < 0) return false;
    chunk.spans.splice(i, 1);
    this.n--;
    if (!chunk.spans.length) chunks.splice(c, 1);
    else if (s.end >= chunk.end) chunk.end = latestEnd(chunk.spans);
    return true;
  }

  /** Calls `fn` with each span overlapping [from, to], in order; `fn` returning false stops. */
  visit(from: number, to: number, fn: (span: Span) => boolean | void): void {
    const chunks = this.chunks;
    // Chunks [0, hi) start at or before `to`.
    const hi = sortedIndex(chunks, to, (ch, x) => ch.spans[0]!.start <= x);
    const open = this.open;
    const openHi = sortedIndex(open, to, (s, x) => s.start <= x);
    let o = 0;
    for (let c = 0; c < hi; c++) {
      const chunk = chunks[c]!;
      if (chunk.end < from) continue;
      const spans = chunk.spans;
      for (let i = 0; i < spans.length; i++) {
        const s = spans[i]!;
        if (s.start > to) break;
        // Open spans before this one go first: every open span overlaps any window after its start.
        while (o < openHi && compareSpans(open[o]!, s) < 0) if (fn(open[o++]!) === false) return;
        if (s.end >= from && fn(s) === false) return;
      }
    }
    while (o < openHi) if (fn(open[o++]!) === false) return;
  }

  /** The spans overlapping [from, to], in order. */
  query(from: number, to: number): Span[] {
    const out: Span[] = [];
    this.visit(from, to, (s) => void out.push(s));
    return out;
  }

  /** Every span, in order (for tests and a one-off export: reads them all). */
  all(): Span[] {
    return this.query(-Infinity, Infinity);
  }

  /** The spans in flight, in order. */
  get inFlight(): readonly Span[] {
    return this.open;
  }

  /** The first start, or undefined when empty. */
  firstStart(): number | undefined {
    const a = this.chunks[0]?.spans[0]?.start;
    const b = this.open[0]?.start;
    return a === undefined ? b : b === undefined ? a : Math.min(a, b);
  }

  /** The latest end among settled spans (one number per chunk), or -Infinity. */
  latestSettledEnd(): number {
    let e = -Infinity;
    for (const c of this.chunks) if (c.end > e) e = c.end;
    return e;
  }
}

function latestEnd(spans: readonly Span[]): number {
  let e = -Infinity;
  for (const s of spans) if (s.end > e) e = s.end;
  return e;
}
