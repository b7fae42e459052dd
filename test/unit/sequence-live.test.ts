/**
 * The live layout (src/session/sequence/live.ts) against the whole rebuild
 * (`buildSequence`): random traffic of several clients is fed to a real
 * session model one event at a time, in a shuffled order (results and acks
 * before their requests, re-sends, refusals, failures, async interims,
 * clients that never registered, a deregistration, the model's clock), and
 * after each update the live layout must equal the layout built from
 * scratch over the same model at the same `now`: the same lanes, the same
 * spans in the same order with the same rows, the same bounds and the same
 * latency table. Small model bounds make it forget requests and drop
 * findings along the way.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { withCart, makeClient, Traffic, T0, cartSurface } from './session-helpers.ts';
import { buildSequence, type Span } from '../../src/session/sequence/spans.ts';
import { LiveSequence } from '../../src/session/sequence/live.ts';
import { latencyTable } from '../../src/session/sequence/latency.ts';
import { SessionModel } from '../../src/session/model/session-model.ts';
import type { WireClient, WireEvent } from '../../src/session/wire/wire.ts';

type Op =
  | { k: 'req'; c: number; action: number; resend: boolean }
  | { k: 'receipt'; c: number; ok: boolean }
  | { k: 'result'; c: number; outcome: 'ok' | 'fail' | 'interim' | 'bad' }
  | { k: 'ack'; c: number; ok: boolean }
  | { k: 'dereg'; c: number }
  | { k: 'wait'; ms: number };

const ACTIONS = ['add_item', 'view_cart', 'export_cart', 'place_order'];

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ k: fc.constant('req' as const), c: fc.nat(3), action: fc.nat(ACTIONS.length - 1), resend: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('receipt' as const), c: fc.nat(3), ok: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant('result' as const), c: fc.nat(3), outcome: fc.constantFrom('ok' as const, 'fail' as const, 'interim' as const, 'bad' as const) }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('ack' as const), c: fc.nat(3), ok: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('dereg' as const), c: fc.nat(3) }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 400 }) }) },
);

/** Traffic of four clients from a list of operations: the fourth never registers (a client the capture came to late). */
function traffic(ops: Op[]): Array<{ ev: WireEvent; client: WireClient }> {
  const tracks = [withCart(makeClient('a')), withCart(makeClient('b')), withCart(makeClient('c')), new Traffic(makeClient('unknown'))];
  const pending = tracks.map(() => ({ requests: [] as Array<{ ev: WireEvent; requestId: string }>, results: [] as WireEvent[] }));
  let t = T0;
  const pick = <T>(xs: T[], n: number) => (xs.length ? xs[n % xs.length] : undefined);
  ops.forEach((op, n) => {
    if (op.k === 'wait') return void (t += op.ms);
    t += 1;
    const tr = tracks[op.c]!;
    tr.t = t;
    const p = pending[op.c]!;
    if (op.k === 'req') {
      const again = op.resend ? pick(p.requests, n) : undefined;
      const action = ACTIONS[op.action]!;
      const params = action === 'add_item' ? (n % 5 ? { sku: 'x', qty: 1 } : { sku: 'x' }) : {};
      const r = tr.request('cart', action, params, again ? { requestId: again.requestId } : {});
      p.requests.push(r);
    } else if (op.k === 'receipt') {
      const r = pick(p.requests, n);
      if (r) tr.receipt(r.ev, op.ok ? { ok: true } : { ok: false, reason: 'busy' });
    } else if (op.k === 'result') {
      const r = pick(p.requests, n);
      if (!r) return;
      const fields = op.outcome === 'ok' ? { success: true, data: { count: 1 } } : op.outcome === 'fail' ? { success: false, error: { code: 'CONFLICT', message: 'no' } } : op.outcome === 'interim' ? { success: true, interim: true } : { success: true, data: 'not an object' };
      p.results.push(tr.result(r.requestId, fields));
    } else if (op.k === 'ack') {
      const r = pick(p.results, n);
      if (r) tr.resultAck(r, op.ok ? { ok: true } : { ok: false, reason: 'stale' });
    } else if (op.k === 'dereg') {
      tr.deregister('cart');
      tr.register(cartSurface());
    }
  });
  return tracks.flatMap((tr) => tr.events);
}

/** Moves each event up to `reach` places earlier or later: answers come before their requests, as two frames' clocks allow. */
function shuffleNear<T>(xs: T[], swaps: Array<[number, number]>, reach: number): T[] {
  const out = [...xs];
  for (const [a, d] of swaps) {
    if (!out.length) break;
    const i = a % out.length;
    const j = Math.min(out.length - 1, Math.max(0, i + (d % (2 * reach + 1)) - reach));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** What a span is, for comparing two layouts (every field). */
function plain(spans: Span[]): unknown[] {
  return spans.map((s) => ({ ...s, marks: s.marks.map((m) => ({ ...m })), durations: { ...s.durations } }));
}

function assertSame(live: LiveSequence, model: SessionModel, eventOf: (id: string) => WireEvent | undefined, now: number, where: string): void {
  const whole = buildSequence(model, eventOf, now);
  assert.deepEqual(live.lanes, whole.lanes, `${where}: lanes`);
  assert.deepEqual(plain(live.spans), plain(whole.spans), `${where}: spans`);
  assert.equal(live.t0, whole.t0, `${where}: t0`);
  assert.equal(live.t1, whole.t1, `${where}: t1`);
  assert.deepEqual(live.latency.rows(), latencyTable(whole.spans), `${where}: latency`);
  for (let l = 0; l < whole.lanes.length; l++) assert.deepEqual(live.laneSpans(l), whole.spans.filter((s) => s.lane === l), `${where}: lane ${l}`);
}

test('the live layout after any sequence of events and updates equals the layout built from scratch', () => {
  fc.assert(
    fc.property(
      fc.array(opArb, { minLength: 1, maxLength: 120 }),
      fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 60 }),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 40 }),
      fc.record({ maxRequests: fc.integer({ min: 2, max: 40 }), maxFindings: fc.integer({ min: 1, max: 30 }), ticks: fc.boolean() }),
      (ops, swaps, updateAt, opts) => {
        const events = shuffleNear(traffic(ops), swaps, 4);
        const model = new SessionModel({ maxRequests: opts.maxRequests, maxFindings: opts.maxFindings });
        const byId = new Map<string, WireEvent>();
        const eventOf = (id: string) => byId.get(id);
        // Events reach the model as they are touched here: no request is looked at again after its update, so the other ways a span changes are what keep it right.
        const live = new LiveSequence(model, eventOf, 0);
        let now = T0;
        live.update(now);
        events.forEach(({ ev, client }, i) => {
          byId.set(ev.id, ev);
          model.apply(ev, client);
          live.touch(ev);
          now = Math.max(now, ev.t);
          if (updateAt[i % updateAt.length]) {
            now += 7;
            // The model's clock: deadlines turn requests timed out with no event of theirs.
            if (opts.ticks) model.tick(now + (i % 3) * 20_000);
            live.update(now);
            assertSame(live, model, eventOf, now, `after event ${i}`);
          }
        });
        now += 1_000;
        if (opts.ticks) model.tick(now + 60_000);
        live.update(now);
        assertSame(live, model, eventOf, now, 'at the end');
        // Only a fresh layout or a model holding what the layout was not told of lays it all out again: neither happened here.
        assert.equal(live.stats.rebuilds, 1);
      },
    ),
    { numRuns: 300 },
  );
});

test('a tick on a quiet session lays out only the spans in flight', () => {
  const tr = withCart();
  const model = new SessionModel();
  const byId = new Map<string, WireEvent>();
  const live = new LiveSequence(model, (id) => byId.get(id));
  const feed = (ev: WireEvent) => (byId.set(ev.id, ev), model.apply(ev, tr.client), live.touch(ev));
  for (const { ev } of tr.events) feed(ev);
  let open: string | undefined;
  for (let i = 0; i < 500; i++) {
    const r = tr.wait(10).request('cart', 'view_cart');
    feed(r.ev);
    feed(tr.wait(1).receipt(r.ev));
    if (i === 250) open = r.requestId;
    else {
      const res = tr.wait(20).result(r.requestId);
      feed(res);
      feed(tr.wait(1).resultAck(res));
    }
  }
  live.update(tr.t);
  assert.equal(live.stats.rebuilds, 1);
  assert.equal(live.spans.length, 999, '499 answered requests and their runtime turns, and one in flight');
  // Nothing arrived for a few updates (the touched ones age out), then the clock moves on.
  for (let k = 0; k < 6; k++) live.update(tr.t + k);
  live.update(tr.t + 5_000);
  assert.equal(live.stats.lastRelaid, 0, 'no span laid out again: the open one only runs on');
  assert.equal(live.stats.lastRowsPlaced, 0);
  const s = live.index.inFlight[0]!;
  assert.equal(s.requestId, open);
  assert.equal(s.end, tr.t + 5_000);
  assert.equal(live.t1, tr.t + 5_000);
  // One more request: one span laid out, its rows placed from it to a checkpoint at most.
  const r = tr.wait(10).request('cart', 'view_cart');
  feed(r.ev);
  live.update(tr.t + 5_000);
  assert.equal(live.stats.lastRelaid, 1);
  assert.ok(live.stats.lastRowsPlaced <= 1 + 32, `rows placed: ${live.stats.lastRowsPlaced}`);
  assertSame(live, model, (id) => byId.get(id), tr.t + 5_000, 'after one more');
});

test('requests the model forgets leave the layout, without laying the session out again', () => {
  const tr = withCart();
  const model = new SessionModel({ maxRequests: 10 });
  const byId = new Map<string, WireEvent>();
  const eventOf = (id: string) => byId.get(id);
  const live = new LiveSequence(model, eventOf, 0);
  const feed = (ev: WireEvent) => (byId.set(ev.id, ev), model.apply(ev, tr.client), live.touch(ev));
  for (const { ev } of tr.events) feed(ev);
  live.update(tr.t);
  for (let i = 0; i < 40; i++) {
    const r = tr.wait(10).request('cart', 'view_cart');
    feed(r.ev);
    const res = tr.wait(20).result(r.requestId);
    feed(res);
    feed(tr.wait(1).resultAck(res));
    live.update(tr.t);
  }
  const c = [...model.clients.values()][0]!;
  assert.equal(c.dropped.requests, 30, 'the model forgot 30 settled requests');
  assert.equal(live.stats.rebuilds, 1);
  assertSame(live, model, eventOf, tr.t, 'after the model forgot');
});
