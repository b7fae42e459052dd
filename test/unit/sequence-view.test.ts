/**
 * The Sequence view's geometry (panel/sequence-draw.ts), without a canvas:
 * zoom keeps the time under the pointer where it is, pan moves the window
 * and keeps its width, the axis steps are round, a point finds the span
 * drawn under it. Expected values are worked out here from the meaning of
 * each gesture.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fit, laneGeometry, LANE_PAD, pan, ROW_GAP, ROW_H, spanAt, ticks, zoom } from '../../panel/sequence-draw.ts';
import { SpanIndex } from '../../src/session/sequence/span-index.ts';
import type { SequenceLayout, Span } from '../../src/session/sequence/spans.ts';

test('zoom keeps the anchor time at the same place across the window', () => {
  const v = { from: 1_000, to: 2_000 };
  const z = zoom(v, 0.5, 1_250);
  assert.equal(z.to - z.from, 500);
  // 1,250 was a quarter across; it still is.
  assert.equal((1_250 - z.from) / (z.to - z.from), 0.25);
  const out = zoom(z, 2, 1_250);
  assert.deepEqual(out, v);
  // Never narrower than a millisecond.
  assert.equal(zoom({ from: 0, to: 1 }, 0.001).to - zoom({ from: 0, to: 1 }, 0.001).from, 1);
});

test('pan moves the window by its offset and keeps its width', () => {
  assert.deepEqual(pan({ from: 10, to: 30 }, -5), { from: 5, to: 25 });
});

test('the axis ticks fall on round steps inside the window', () => {
  const { step, at } = ticks({ from: 1_003, to: 2_010 }, 5);
  assert.equal(step, 500);
  assert.deepEqual(at, [1_500, 2_000]);
});

test('a point finds the span under it: by lane, by row, by time within a few pixels', () => {
  const span = (lane: number, row: number, start: number, end: number, requestId: string) => ({ lane, row, start, end, requestId }) as Span;
  const spans = [span(0, 0, 0, 100, 'rt'), span(1, 0, 0, 400, 'a'), span(1, 1, 50, 60, 'b'), span(1, 0, 600, 700, 'c')].sort((x, y) => x.start - y.start);
  const layout = { lanes: [{ key: '', label: 'Runtime', kind: 'runtime', rows: 1 }, { key: 'c1', label: 'c1', kind: 'client', rows: 2 }], spans, t0: 0, t1: 700 } as SequenceLayout;
  const lanes = laneGeometry(layout);
  assert.deepEqual(lanes.heights, [LANE_PAD * 2 + ROW_H, LANE_PAD * 2 + 2 * ROW_H + ROW_GAP]);
  const index = new SpanIndex(spans);
  const view = { from: 0, to: 1_000 };
  const width = 1_000; // one pixel a millisecond
  const rowY = (lane: number, row: number) => lanes.tops[lane]! + LANE_PAD + row * (ROW_H + ROW_GAP) + ROW_H / 2;
  assert.equal(spanAt(index, view, width, lanes, 50, rowY(0, 0))?.requestId, 'rt');
  assert.equal(spanAt(index, view, width, lanes, 55, rowY(1, 0))?.requestId, 'a');
  assert.equal(spanAt(index, view, width, lanes, 55, rowY(1, 1))?.requestId, 'b');
  assert.equal(spanAt(index, view, width, lanes, 598, rowY(1, 0))?.requestId, 'c', 'two pixels before it still hits it');
  assert.equal(spanAt(index, view, width, lanes, 500, rowY(1, 0)), undefined, 'between spans: none');
  assert.equal(spanAt(index, view, width, lanes, 50, lanes.height + 5), undefined, 'below the lanes: none');
  const whole = fit(layout);
  assert.ok(whole.from < 0 && whole.to > 700);
});
