/**
 * Draws the sequence layout on a canvas: only the spans the window shows
 * (the span index's query), and of those, spans under a pixel that follow
 * one another on the same row are merged into one rectangle, so a
 * zoomed-out view of 100,000 events costs a few thousand fills, not one per
 * span. No text is drawn here: lane names, the axis and the selected span's
 * line are DOM text (panel/views/sequence.tsx).
 */
import { FLAG, type Lane, type Span } from '../src/session/sequence/spans.ts';
import { runsAt, WIDE, type SpanIndex } from '../src/session/sequence/span-index.ts';

export interface Viewport {
  from: number;
  to: number;
}

export interface Palette {
  line: string;
  span: string;
  open: string;
  failed: string;
  fault: string;
  warn: string;
  selected: string;
  tick: string;
}

export const ROW_H = 10;
export const ROW_GAP = 3;
export const LANE_PAD = 6;

/** Where each lane sits: its top and height, in CSS pixels. */
export interface Lanes {
  tops: number[];
  heights: number[];
  height: number;
}

export function laneGeometry(layout: { lanes: readonly Lane[] }): Lanes {
  const tops: number[] = [];
  const heights: number[] = [];
  let y = 0;
  for (const lane of layout.lanes) {
    const h = LANE_PAD * 2 + lane.rows * ROW_H + (lane.rows - 1) * ROW_GAP;
    tops.push(y);
    heights.push(h);
    y += h;
  }
  return { tops, heights, height: y };
}

function rowTop(lanes: Lanes, lane: number, row: number): number {
  return lanes.tops[lane]! + LANE_PAD + row * (ROW_H + ROW_GAP);
}

function colorOf(s: Span, p: Palette): string {
  if (s.flags & (FLAG.failed | FLAG.refusal)) return p.failed;
  if (s.flags & FLAG.fault) return p.fault;
  if (s.flags & FLAG.open) return p.open;
  return p.span;
}

/** Draws the window `view` at `width` CSS pixels; returns how many spans and runs it read and how many rectangles it filled. */
export function drawSequence(
  ctx: CanvasRenderingContext2D,
  index: SpanIndex,
  view: Viewport,
  width: number,
  lanes: Lanes,
  p: Palette,
  selected: Span | undefined,
): { spans: number; fills: number } {
  ctx.clearRect(0, 0, width, lanes.height);
  ctx.fillStyle = p.line;
  for (let l = 1; l < lanes.tops.length; l++) ctx.fillRect(0, lanes.tops[l]!, width, 1);
  const scale = width / Math.max(1, view.to - view.from);
  const x = (t: number) => (t - view.from) * scale;
  // Per lane row: the rectangle being merged, drawn when the next span leaves a gap or changes colour.
  const pending = new Map<number, { x0: number; x1: number; y: number; color: string }>();
  let fills = 0;
  let spans = 0;
  const flush = (r: { x0: number; x1: number; y: number; color: string }) => {
    ctx.fillStyle = r.color;
    ctx.fillRect(r.x0, r.y, Math.max(1, r.x1 - r.x0), ROW_H);
    // In flight: a light fill inside an outline of the span colour, which carries the 3:1 contrast.
    if (r.color === p.open) {
      ctx.strokeStyle = p.span;
      ctx.lineWidth = 1;
      ctx.strokeRect(r.x0 + 0.5, r.y + 0.5, Math.max(1, r.x1 - r.x0 - 1), ROW_H - 1);
    }
    fills++;
  };
  const marks: Span[] = [];
  const classColor = [p.span, p.failed, p.fault];
  /** A stretch of a row: merged into the row's pending rectangle when it touches it within a pixel and has its colour. */
  const put = (lane: number, row: number, color: string, start: number, end: number) => {
    const x0 = Math.max(-1, x(start));
    const x1 = Math.min(width + 1, Math.max(x(end), x0 + 1));
    const key = lane * 64 + row;
    const r = pending.get(key);
    if (r && r.color === color && x0 <= r.x1 + 1) {
      if (x1 > r.x1) r.x1 = x1;
      return;
    }
    if (r) flush(r);
    pending.set(key, { x0, x1, y: rowTop(lanes, lane, row), color });
  };
  // A moment inside a wide span, as a thin tick (no array per span: this runs for every wide span of a step).
  const tick = (s: Span, t: number | undefined, y: number) => {
    if (t !== undefined && t > s.start && t < s.end) ctx.fillRect(Math.round(x(t)), y + 2, 1, ROW_H - 4);
  };
  const one = (s: Span) => {
    spans++;
    const x0 = Math.max(-1, x(s.start));
    const x1 = Math.min(width + 1, Math.max(x(s.end), x0 + 1));
    const color = colorOf(s, p);
    if (s.flags & (FLAG.fault | FLAG.refusal | FLAG.resend | FLAG.finding | FLAG.failed)) marks.push(s);
    if (x1 - x0 > WIDE) {
      // Wide enough to read: drawn now, with the moments inside (receipt, interim, result) as ticks.
      const key = s.lane * 64 + s.row;
      const r = pending.get(key);
      if (r) flush(r), pending.delete(key);
      const y = rowTop(lanes, s.lane, s.row);
      flush({ x0, x1, y, color });
      ctx.fillStyle = p.tick;
      tick(s, s.receiptAt, y);
      tick(s, s.interimAt, y);
      tick(s, s.resultAt, y);
    } else put(s.lane, s.row, color, s.start, s.end);
  };
  // The resolution of the runs: the coarsest power of two of milliseconds under a pixel.
  const level = Math.floor(Math.log2(Math.max(1e-3, 1 / scale)));
  index.walk(
    view.from,
    view.to,
    (c) => {
      // Zoomed out far enough that a chunk's spans are mostly under a pixel: its runs, and its long spans one by one.
      if (c.size < 16 || level < 0) return false;
      const at = runsAt(c, level);
      if (at.runs.length + at.wide.length > c.size / 2) return false;
      spans += at.runs.length;
      for (const r of at.runs) put(r.lane, r.row, classColor[r.cls]!, r.start, r.end);
      for (const s of c.marked) if (s.end - s.start <= WIDE * 2 ** level) marks.push(s);
      for (const s of at.wide) one(s);
      return true;
    },
    one,
  );
  for (const r of pending.values()) flush(r);
  drawMarks(ctx, marks, x, lanes, p, width);
  if (selected && selected.end >= view.from && selected.start <= view.to) {
    const y = rowTop(lanes, selected.lane, selected.row);
    const x0 = x(selected.start);
    ctx.strokeStyle = p.selected;
    ctx.lineWidth = 2;
    ctx.strokeRect(Math.max(0, x0) - 2, y - 2, Math.max(2, Math.min(width, x(selected.end)) - Math.max(0, x0)) + 4, ROW_H + 4);
  }
  return { spans, fills };
}

/** Marks as small shapes above their row's spans: one per pixel column and kind. */
const MARK_KINDS = ['fault', 'refusal', 'resend', 'finding', 'failed'];

function drawMarks(ctx: CanvasRenderingContext2D, spans: Span[], x: (t: number) => number, lanes: Lanes, p: Palette, width: number): void {
  const seen = new Set<number>();
  for (const s of spans) {
    const y = rowTop(lanes, s.lane, s.row);
    for (const m of s.marks) {
      if (m.kind === 'injected' || m.kind === 'held') continue;
      const px = Math.round(x(m.t));
      if (px < -4 || px > width + 4) continue;
      const key = (s.lane * 64 + s.row) * 1e6 + px * 8 + MARK_KINDS.indexOf(m.kind);
      if (seen.has(key)) continue;
      seen.add(key);
      ctx.fillStyle = m.kind === 'fault' ? p.fault : m.kind === 'resend' || m.kind === 'finding' ? p.warn : p.failed;
      ctx.beginPath();
      if (m.kind === 'finding') ctx.arc(px, y + ROW_H / 2, 3.5, 0, Math.PI * 2);
      else if (m.kind === 'fault') (ctx.moveTo(px, y - 2), ctx.lineTo(px + 4, y + ROW_H / 2), ctx.lineTo(px, y + ROW_H + 2), ctx.lineTo(px - 4, y + ROW_H / 2));
      else (ctx.moveTo(px - 4, y - 3), ctx.lineTo(px + 4, y - 3), ctx.lineTo(px, y + 3));
      ctx.closePath();
      ctx.fill();
    }
  }
}

/** The span under a point (CSS pixels), if any: the nearest within a few pixels on that row. */
export function spanAt(index: SpanIndex, view: Viewport, width: number, lanes: Lanes, px: number, py: number): Span | undefined {
  let lane = -1;
  for (let l = 0; l < lanes.tops.length; l++) if (py >= lanes.tops[l]! && py < lanes.tops[l]! + lanes.heights[l]!) lane = l;
  if (lane < 0) return undefined;
  const row = Math.floor((py - lanes.tops[lane]! - LANE_PAD + ROW_GAP / 2) / (ROW_H + ROW_GAP));
  const perPx = (view.to - view.from) / Math.max(1, width);
  const t = view.from + px * perPx;
  let best: Span | undefined;
  let bestD = Infinity;
  index.visit(t - 4 * perPx, t + 4 * perPx, (s) => {
    if (s.lane !== lane || s.row !== row) return;
    const d = t < s.start ? s.start - t : t > s.end ? t - s.end : 0;
    if (d < bestD) (best = s), (bestD = d);
  });
  return best;
}

/** Zooms by `factor` (< 1 zooms in) around time `at`, never narrower than 1 ms. */
export function zoom(v: Viewport, factor: number, at = (v.from + v.to) / 2): Viewport {
  const span = Math.max(1, (v.to - v.from) * factor);
  const k = (at - v.from) / Math.max(1e-9, v.to - v.from);
  return { from: at - span * k, to: at - span * k + span };
}

export function pan(v: Viewport, dt: number): Viewport {
  return { from: v.from + dt, to: v.to + dt };
}

/** The whole layout, with a little room at both ends. */
export function fit(layout: { t0: number; t1: number }): Viewport {
  const span = Math.max(10, layout.t1 - layout.t0);
  return { from: layout.t0 - span * 0.02, to: layout.t1 + span * 0.02 };
}

/** Axis ticks at a round step giving about `count` labels across. */
export function ticks(v: Viewport, count: number): { step: number; at: number[] } {
  const raw = (v.to - v.from) / Math.max(1, count);
  const steps = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000];
  const step = steps.find((s) => s >= raw) ?? 3_600_000;
  const at: number[] = [];
  for (let t = Math.ceil(v.from / step) * step; t <= v.to && at.length < 100; t += step) at.push(t);
  return { step, at };
}
