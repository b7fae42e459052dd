/**
 * The sequence layout (src/session/sequence) on hand-built traffic fed
 * through the real session model. Each expected span is written from the
 * spec's meaning of an exchange: the runtime sends `action:request`, the
 * client acknowledges receipt (§7.3.7), an async action answers first with
 * `interim: true` and later with its final result (§7.3.3), and the
 * runtime acknowledges the result (§7.3.6). The span runs from the request
 * to the last of these; a request with no final answer is in flight.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { withCart, makeClient, Traffic, T0, cartSurface } from './session-helpers.ts';
import { buildSequence, FLAG, type Span } from '../../src/session/sequence/spans.ts';
import { runsAt, SpanIndex } from '../../src/session/sequence/span-index.ts';
import { latencyTable, LatencyBook, nearestRank, windowLatency } from '../../src/session/sequence/latency.ts';
import type { WireEvent } from '../../src/session/wire/wire.ts';

function layout(...tracks: Traffic[]) {
  const all = tracks.flatMap((t) => t.events);
  all.sort((a, b) => a.ev.t - b.ev.t);
  const merged = new Traffic();
  merged.events.push(...all);
  const model = merged.model();
  const byId = new Map<string, WireEvent>(all.map((e) => [e.ev.id, e.ev]));
  return { model, byId, seq: (now: number) => buildSequence(model, (id) => byId.get(id), now) };
}

function clientSpans(spans: Span[], requestId: string): Span[] {
  return spans.filter((s) => s.requestId === requestId && s.lane !== 0);
}

test('a sync request: request, receipt, result and the runtime’s ack, with durations from the request', () => {
  const tr = withCart();
  tr.wait(100);
  const { ev, requestId } = tr.request('cart', 'add_item', { sku: 'a', qty: 1 });
  const start = tr.t;
  tr.wait(5).receipt(ev);
  const res = tr.wait(35).result(requestId, { success: true, data: { count: 1 } });
  tr.wait(5).resultAck(res);
  const { seq } = layout(tr);
  const s = seq(T0 + 10_000);
  assert.deepEqual(s.lanes.map((l) => [l.label, l.kind]), [['Runtime', 'runtime'], ['c1', 'client']]);
  const [span] = clientSpans(s.spans, requestId);
  assert.ok(span);
  assert.equal(span.lane, 1);
  assert.equal(span.start, start);
  assert.equal(span.end, start + 45, 'ends at the runtime’s acknowledgment');
  assert.deepEqual(span.durations, { receipt: 5, result: 40, ack: 45 });
  assert.equal(span.flags & FLAG.open, 0);
  assert.equal(span.eventId, ev.id);
  assert.deepEqual(span.marks, []);
  // The runtime's turn: from the result to its acknowledgment.
  const turn = s.spans.find((x) => x.lane === 0 && x.requestId === requestId);
  assert.ok(turn);
  assert.equal(turn.start, start + 40);
  assert.equal(turn.end, start + 45);
});

test('an async request: interim acknowledgment, then the final result', () => {
  const tr = withCart();
  const { ev, requestId } = tr.request('cart', 'export_cart', {});
  const start = tr.t;
  tr.wait(2).receipt(ev);
  const interim = tr.wait(8).result(requestId, { success: true, interim: true, progress: 0 });
  tr.wait(1).resultAck(interim);
  const fin = tr.wait(489).result(requestId, { success: true, interim: false, data: {} });
  tr.wait(3).resultAck(fin);
  const { seq } = layout(tr);
  const [span] = clientSpans(seq(T0 + 60_000).spans, requestId);
  assert.ok(span);
  assert.deepEqual(span.durations, { receipt: 2, interim: 10, result: 500, ack: 503 });
  assert.equal(span.interimAt, start + 10);
  assert.equal(span.resultAt, start + 500);
  assert.equal(span.end, start + 503);
});

test('a request still in flight is an open span to now', () => {
  const tr = withCart();
  const { ev, requestId } = tr.request('cart', 'add_item', { sku: 'a', qty: 1 });
  const start = tr.t;
  tr.wait(4).receipt(ev);
  const { seq } = layout(tr);
  const [span] = clientSpans(seq(start + 1_000).spans, requestId);
  assert.ok(span);
  assert.ok(span.flags & FLAG.open);
  assert.equal(span.end, start + 1_000);
  assert.equal(span.durations.result, undefined);
  // Nothing open is counted in the latency table; it says one is open.
  assert.deepEqual(latencyTable(seq(start + 1_000).spans).map((r) => [r.action, r.count, r.open]), [['cart/add_item', 0, 1]]);
});

test('a refusal on receipt ends the request and is marked', () => {
  const tr = withCart();
  const { ev, requestId } = tr.request('cart', 'add_item', { sku: 'a', qty: 1 });
  const start = tr.t;
  tr.wait(3).receipt(ev, { ok: false, reason: 'busy' });
  const { seq } = layout(tr);
  const [span] = clientSpans(seq(start + 60_000).spans, requestId);
  assert.ok(span);
  assert.equal(span.flags & FLAG.open, 0, 'a refused request is not in flight');
  assert.ok(span.flags & FLAG.refusal);
  assert.equal(span.end, start + 3);
  assert.deepEqual(span.marks.map((m) => [m.kind, m.t]), [['refusal', start + 3]]);
  assert.match(span.marks[0]!.text, /busy/);
});

test('a failed result, a result the runtime refused, a re-sent request, a fault and a finding are marked', () => {
  const tr = withCart();
  // Sent twice with the same requestId (§7.3.7), the second time through a fault rule.
  const { ev, requestId } = tr.request('cart', 'add_item', { sku: 'a', qty: 1 });
  const start = tr.t;
  tr.wait(1).receipt(ev);
  tr.wait(20);
  tr.request('cart', 'add_item', { sku: 'a', qty: 1 }, { requestId }, { faulted: 'rule-1', fault: 'duplicated' });
  const fail = tr.wait(10).result(requestId, { success: false, error: { code: 'CONFLICT', message: 'out of stock' } });
  tr.wait(2).resultAck(fail, { ok: false, reason: 'stale' });
  // Params missing `qty`: the client must answer VALIDATION_ERROR, a finding on the request.
  const bad = tr.wait(100).request('cart', 'add_item', { sku: 'b' });
  const { seq, model } = layout(tr);
  assert.ok(model.findings.some((f) => f.events.includes(bad.ev.id)), 'the model raised a finding on the bad request');
  const s = seq(start + 1_000);
  const [span] = clientSpans(s.spans, requestId);
  assert.ok(span);
  const kinds = span.marks.map((m) => m.kind);
  assert.ok(kinds.includes('resend'), `re-send marked: ${kinds}`);
  assert.ok(kinds.includes('fault'), `fault marked: ${kinds}`);
  assert.ok(kinds.includes('failed'), `failure marked: ${kinds}`);
  assert.ok(kinds.includes('refusal'), `refused result marked: ${kinds}`);
  assert.equal(span.code, 'CONFLICT');
  for (const f of ['resend', 'fault', 'failed', 'refusal'] as const) assert.ok(span.flags & FLAG[f], f);
  const turn = s.spans.find((x) => x.lane === 0 && x.requestId === requestId);
  assert.ok(turn && turn.flags & FLAG.refusal, 'the runtime’s refusing turn is marked too');
  const [badSpan] = clientSpans(s.spans, bad.requestId);
  assert.ok(badSpan && badSpan.flags & FLAG.finding && badSpan.marks.some((m) => m.kind === 'finding'));
});

test('a lane per client, concurrent spans in rows, spans in start order', () => {
  const a = withCart(makeClient('alpha'));
  const b = withCart(makeClient('beta'));
  b.t = a.t;
  const r1 = a.request('cart', 'view_cart');
  const r2 = a.wait(5).request('cart', 'view_cart');
  a.wait(50).result(r1.requestId);
  a.wait(1).result(r2.requestId);
  const r3 = b.wait(7).request('cart', 'view_cart');
  b.wait(10).result(r3.requestId);
  const { seq } = layout(a, b);
  const s = seq(a.t + 10);
  assert.deepEqual(s.lanes.map((l) => l.label), ['Runtime', 'alpha', 'beta']);
  const one = clientSpans(s.spans, r1.requestId)[0]!;
  const two = clientSpans(s.spans, r2.requestId)[0]!;
  const three = clientSpans(s.spans, r3.requestId)[0]!;
  assert.equal(one.lane, 1);
  assert.equal(three.lane, 2);
  assert.notEqual(one.row, two.row, 'overlapping spans of a lane take different rows');
  assert.equal(s.lanes[1]!.rows, 2);
  for (let i = 1; i < s.spans.length; i++) assert.ok(s.spans[i - 1]!.start <= s.spans[i]!.start);
});

test('nearest-rank percentiles, as defined: the ceil(p/100·n)-th smallest', () => {
  const d = Array.from({ length: 20 }, (_, i) => i + 1);
  assert.equal(nearestRank(d, 50), 10);
  assert.equal(nearestRank(d, 95), 19);
  assert.equal(nearestRank(d, 100), 20);
  assert.equal(nearestRank([7], 95), 7);
  assert.ok(Number.isNaN(nearestRank([], 50)));
  // The table over spans: three completed add_item requests of 10, 30 and 20 ms.
  const tr = withCart();
  for (const ms of [10, 30, 20]) {
    const { requestId } = tr.wait(100).request('cart', 'view_cart');
    tr.wait(ms).result(requestId);
  }
  const rows = latencyTable(layout(tr).seq(tr.t).spans);
  assert.deepEqual(rows, [{ action: 'cart/view_cart', count: 3, p50: 20, p95: 30, max: 30, open: 0, failed: 0 }]);
});

test('the span index answers a window as a scan of every span would, after inserts and removals, with spans in flight', () => {
  const arb = fc.array(fc.tuple(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 3_000 }), fc.boolean(), fc.nat(3), fc.boolean()), { maxLength: 400 });
  fc.assert(
    fc.property(arb, fc.array(fc.nat(), { maxLength: 200 }), fc.integer({ min: -100, max: 11_000 }), fc.integer({ min: 0, max: 4_000 }), (raw, removals, from, width) => {
      // Open spans run to "now" (12,000 here); the rest end where they end.
      const spans = raw.map(([start, len, long, lane, open], i) => ({ start, end: open ? 12_000 : start + (long ? len * 5 : len), lane, client: 'c', requestId: `r${i}`, flags: open ? FLAG.open : 0 }) as Span);
      const index = new SpanIndex();
      for (const s of spans) index.insert(s);
      const gone = new Set<Span>();
      for (const k of removals) {
        const s = spans[k % Math.max(1, spans.length)];
        if (s && !gone.has(s)) assert.ok(index.remove(s)), gone.add(s);
      }
      const kept = spans.filter((s) => !gone.has(s));
      // The oracle: a scan of every span, sorted by the layout's order.
      const byOrder = (a: Span, b: Span) => a.start - b.start || a.lane - b.lane || (a.requestId < b.requestId ? -1 : a.requestId > b.requestId ? 1 : 0);
      const want = kept.filter((s) => s.start <= from + width && s.end >= from).sort(byOrder);
      assert.deepEqual(index.query(from, from + width), want);
      assert.equal(index.size, kept.length);
      assert.deepEqual(index.all(), [...kept].sort(byOrder));
      // Built at once from spans in order, it answers the same.
      assert.deepEqual(new SpanIndex([...kept].sort(byOrder)).query(from, from + width), want);
    }),
  );
});

test('a window walked by chunks: whole chunks inside it count and mark as their spans do, and their runs cover what their spans cover', () => {
  const arb = fc.array(fc.tuple(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: 300 }), fc.nat(2), fc.nat(2), fc.constantFrom(0, FLAG.failed, FLAG.fault, FLAG.resend, FLAG.open)), { maxLength: 600 });
  fc.assert(
    fc.property(arb, fc.integer({ min: -100, max: 5_500 }), fc.integer({ min: 0, max: 6_000 }), fc.integer({ min: 0, max: 6 }), (raw, from, width, level) => {
      const spans = raw.map(([start, len, lane, row, flags], i) => ({ start, end: flags & FLAG.open ? 9_000 : start + len, lane, row, client: 'c', requestId: `r${String(i).padStart(4, '0')}`, flags }) as Span);
      const index = new SpanIndex();
      for (const s of spans) index.insert(s);
      const to = from + width;
      const want = index.query(from, to);
      let n = 0;
      const marked: Span[] = [];
      index.walk(
        from,
        to,
        (c) => {
          n += c.size;
          marked.push(...c.marked);
          // The chunk's spans, found by a scan of all: those starting within its first and last start.
          const mine = spans.filter((s) => !(s.flags & FLAG.open) && s.start >= c.firstStart && s.start <= c.lastStart);
          assert.ok(mine.length >= c.size);
          // At a resolution of 2^level ms: every short span lies within a run of its lane, row and colour, every long one
          // is kept apart, every run starts and ends at one of those spans, and two runs of a row and colour are further apart than the resolution.
          const gap = 2 ** level;
          const { runs, wide } = runsAt(c, level);
          const cls = (s: Span) => (s.flags & FLAG.failed ? 1 : s.flags & FLAG.fault ? 2 : 0);
          // Spans strictly inside the chunk's starts are its own (at its edges a neighbour may share a start).
          for (const s of mine.filter((x) => x.start > c.firstStart && x.start < c.lastStart)) {
            if (s.end - s.start > 12 * gap) assert.ok(wide.includes(s), 'a long span kept apart');
            else assert.ok(runs.some((r) => r.lane === s.lane && r.row === s.row && r.cls === cls(s) && r.start <= s.start && s.end <= r.end), 'a span lies within a run');
          }
          const lastOf = new Map<string, (typeof runs)[number]>();
          for (const r of runs) {
            const k = `${r.lane}/${r.row}/${r.cls}`;
            const before = lastOf.get(k);
            if (before) assert.ok(r.start > before.end + gap, 'consecutive runs of a row and colour lie further apart than the resolution');
            lastOf.set(k, r);
          }
          for (const r of runs) {
            assert.ok(mine.some((s) => s.lane === r.lane && s.row === r.row && cls(s) === r.cls && s.start === r.start));
            assert.ok(mine.some((s) => s.lane === r.lane && s.row === r.row && cls(s) === r.cls && s.end === r.end));
          }
          return true;
        },
        (s) => {
          n++;
          if (s.flags & (FLAG.failed | FLAG.fault | FLAG.resend)) marked.push(s);
        },
      );
      assert.equal(n, want.length, 'as many spans in view');
      assert.deepEqual(new Set(marked), new Set(want.filter((s) => s.flags & (FLAG.failed | FLAG.fault | FLAG.resend))), 'the same marked spans');
      // Taking no chunk whole, the walk is the visit.
      const one: Span[] = [];
      index.walk(from, to, () => false, (s) => void one.push(s));
      assert.deepEqual(one, want);
    }),
  );
});

test('latency: kept span by span and over a brushed range, as the table over a scan of the spans', () => {
  const arb = fc.array(fc.tuple(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: 500 }), fc.nat(2), fc.nat(3), fc.boolean()), { maxLength: 300 });
  fc.assert(
    fc.property(arb, fc.array(fc.nat(), { maxLength: 100 }), fc.integer({ min: -50, max: 2_100 }), fc.integer({ min: 0, max: 2_500 }), (raw, removals, from, width) => {
      // Outcome 3 is in flight (no result); 2 failed; lane 0 is the runtime's turn, never counted.
      const spans = raw.map(([start, d, action, outcome, runtime], i) => {
        const s = { start, end: start + d, lane: runtime ? 0 : 1, row: 0, client: 'c', requestId: `r${String(i).padStart(4, '0')}`, surfaceId: 's', actionId: `a${action}`, flags: outcome === 3 ? FLAG.open : 0, durations: outcome === 3 ? {} : { result: d } } as Span;
        if (outcome === 2) s.code = 'CONFLICT';
        return s;
      });
      const book = new LatencyBook();
      const index = new SpanIndex();
      for (const s of spans) book.add(s), index.insert(s);
      const gone = new Set<Span>();
      for (const k of removals) {
        const s = spans[k % Math.max(1, spans.length)];
        if (s && !gone.has(s)) book.remove(s), index.remove(s), gone.add(s);
      }
      const kept = spans.filter((s) => !gone.has(s));
      assert.deepEqual(book.rows(), latencyTable(kept));
      const to = from + width;
      assert.deepEqual(windowLatency(index, from, to), latencyTable(kept.filter((s) => s.start >= from && s.start <= to)));
    }),
  );
});

test('no requests: an empty layout at now', () => {
  const tr = new Traffic();
  tr.open();
  tr.register(cartSurface());
  const s = layout(tr).seq(T0 + 5);
  assert.equal(s.spans.length, 0);
  assert.equal(s.t0, T0 + 5);
});
