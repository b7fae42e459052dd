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
  /** What a zoomed-out view needs of it, made when first asked and dropped when it changes. */
  summary?: ChunkSummary;
}

/** Colour classes of a settled span, for drawing without its flags. */
export const SpanClass = { done: 0, failed: 1, fault: 2 } as const;
export type SpanClass = (typeof SpanClass)[keyof typeof SpanClass];

export function classOf(s: Span): SpanClass {
  return s.flags & (FLAG.failed | FLAG.refusal) ? SpanClass.failed : s.flags & FLAG.fault ? SpanClass.fault : SpanClass.done;
}

/** A run: spans of one lane, row and colour that overlap or lie closer than a pixel, as one stretch of time. */
export interface Run {
  lane: number;
  row: number;
  cls: SpanClass;
  start: number;
  end: number;
}

/**
 * A chunk seen from afar: its size and marked spans (what the view counts
 * and lists), and its spans as runs at a resolution (`runsAt`).
 */
export interface ChunkSummary {
  size: number;
  firstStart: number;
  lastStart: number;
  end: number;
  longest: number;
  marked: Span[];
  /** Its spans, in order (read by `runsAt` once per resolution). */
  spans: readonly Span[];
  levels: Map<number, RunLevel>;
}

/** A chunk's spans at a resolution of `2^level` ms: runs of the short ones, and the long ones apart. */
export interface RunLevel {
  runs: Run[];
  /** Spans longer than WIDE · 2^level: a view at this resolution may draw them wide enough to read, one by one. */
  wide: Span[];
}

/** Flags that put a mark above a span. */
export const MARKS = FLAG.fault | FLAG.refusal | FLAG.resend | FLAG.finding | FLAG.failed;

/** A span wider than this many pixels is drawn on its own, with its moments as ticks (panel/sequence-draw.ts). */
export const WIDE = 12;

function summarize(c: Chunk): ChunkSummary {
  const marked: Span[] = [];
  let longest = 0;
  for (const s of c.spans) {
    if (s.end - s.start > longest) longest = s.end - s.start;
    if (s.flags & MARKS) marked.push(s);
  }
  return { size: c.spans.length, firstStart: c.spans[0]!.start, lastStart: c.spans[c.spans.length - 1]!.start, end: c.end, longest, marked, spans: c.spans, levels: new Map() };
}

/**
 * The chunk's runs for a view where a pixel is at least `2^level` ms: spans
 * of a lane, row and colour that overlap or lie within `2^level` ms of each
 * other (under a pixel: drawing them one by one merges them too) as one
 * stretch; spans that could be wider than WIDE pixels at that resolution
 * kept apart, to be drawn on their own. Made once per resolution and chunk.
 */
export function runsAt(c: ChunkSummary, level: number): RunLevel {
  let got = c.levels.get(level);
  if (got) return got;
  const gap = 2 ** level;
  const runs: Run[] = [];
  const wide: Span[] = [];
  const open = new Map<number, Run>();
  for (const s of c.spans) {
    if (s.end - s.start > WIDE * gap) {
      wide.push(s);
      continue;
    }
    const cls = classOf(s);
    const key = (s.lane * 64 + s.row) * 4 + cls;
    const r = open.get(key);
    if (r && s.start <= r.end + gap) {
      if (s.end > r.end) r.end = s.end;
    } else {
      const run = { lane: s.lane, row: s.row, cls, start: s.start, end: s.end };
      runs.push(run);
      open.set(key, run);
    }
  }
  c.levels.set(level, (got = { runs, wide }));
  return got;
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
    chunk.summary = undefined;
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
    chunk.summary = undefined;
    this.n--;
    if (!chunk.spans.length) chunks.splice(c, 1);
    else if (s.end >= chunk.end) chunk.end = latestEnd(chunk.spans);
    return true;
  }

  /** Calls `fn` with each span overlapping [from, to], in order; `fn` returning false stops. */
  visit(from: number, to: number, fn: (span: Span) => boolean | void): void {
    this.walk(from, to, () => false, fn);
  }

  /** Tells the index a settled span's row changed (the live layout moves rows in place): its chunk's summary is made again. */
  moved(s: Span): void {
    if (isOpen(s)) return;
    const c = sortedIndex(this.chunks, s, (ch, x) => compareSpans(ch.spans[0]!, x) <= 0) - 1;
    const chunk = this.chunks[c];
    if (chunk) chunk.summary = undefined;
  }

  /**
   * Walks the window [from, to] as `visit` does, but hands a chunk lying
   * wholly inside it to `whole` as its summary; `whole` returning true takes
   * it (its spans are not visited), false visits them one by one; `fn`
   * returning false stops, as in `visit`. A
   * zoomed-out step then costs a few runs per chunk, not a call per span.
   */
  walk(from: number, to: number, whole: (c: ChunkSummary) => boolean, fn: (span: Span) => boolean | void): void {
    const chunks = this.chunks;
    const hi = sortedIndex(chunks, to, (ch, x) => ch.spans[0]!.start <= x);
    const open = this.open;
    const openHi = sortedIndex(open, to, (s, x) => s.start <= x);
    let o = 0;
    for (let c = 0; c < hi; c++) {
      const chunk = chunks[c]!;
      if (chunk.end < from) continue;
      const spans = chunk.spans;
      if (spans[0]!.start >= from && spans[spans.length - 1]!.start <= to) {
        while (o < openHi && compareSpans(open[o]!, spans[0]!) < 0) if (fn(open[o++]!) === false) return;
        if (whole((chunk.summary ??= summarize(chunk)))) continue;
      }
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
