/**
 * Arrival order never changes the model: capture from several frames and
 * hooks, fed in any interleaving of the per-source streams (each source in
 * its own order) and any split into batches, gives the model and findings
 * of the canonical order. And the model itself pairs an answer that comes
 * before its request (two frames' clocks), saying "never received" only once
 * absence is certain.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { surfacesHash } from '../../src/protocol/index.ts';
import type { OUISurface } from '../../src/protocol/index.ts';
import { ModelFeed, REORDER_WINDOW_MS, canonicalOrder, placeAll } from '../../src/session/model/merge.ts';
import { SessionModel, replay } from '../../src/session/model/session-model.ts';
import { PARK_SETTLE_MS } from '../../src/session/model/results.ts';
import type { WireClient, WireEvent } from '../../src/session/wire/wire.ts';

const T0 = 1_700_000_000_000;

const PM: WireClient = { key: 'postmessage:top<->top/0', kind: 'postmessage', label: 'postMessage widget', origin: 'http://host.test', frameUrl: 'http://host.test/', frameId: 0 };
const DIRECT: WireClient = { key: 'direct:H/c2', kind: 'direct', label: 'assistant', origin: 'http://host.test', frameUrl: 'http://host.test/', frameId: 0 };
const CLIENTS = new Map([PM, DIRECT].map((c) => [c.key, c]));
const clientOf = (key: string) => CLIENTS.get(key);

/** Payload data with the keys that would pollute a prototype if copied carelessly, as JSON.parse makes them (own properties). */
const hostile = fc
  .array(fc.tuple(fc.constantFrom('__proto__', 'constructor', 'prototype', 'code', 'n'), fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.constant(null), fc.constant({ polluted: true }))), { maxLength: 4 })
  .map((entries) => JSON.parse(`{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`) as Record<string, unknown>);

function surface(meta: Record<string, unknown>): OUISurface {
  return {
    id: 'coupon',
    name: 'Coupon',
    description: 'Coupons',
    actions: [
      { id: 'apply', description: 'Apply a code', effect: 'edit', input: { type: 'object' } },
      { id: 'export', description: 'Export', effect: 'job', async: true, input: { type: 'object' } },
    ],
    observations: [{ id: 'coupon', description: 'The coupon', schema: {} }],
    metadata: meta,
  } as OUISurface;
}

const RIDS = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000003', 'not-a-uuid'];

type Step =
  | { op: 'register'; meta: Record<string, unknown> }
  | { op: 'deregister' }
  | { op: 'request'; rid: number; action: 'apply' | 'export'; params: Record<string, unknown> }
  | { op: 'result'; rid: number; success: boolean; interim: boolean; data: Record<string, unknown> }
  | { op: 'receipt'; rid: number }
  | { op: 'resultAck'; ok: boolean }
  | { op: 'update'; value: unknown }
  | { op: 'pull' }
  | { op: 'direct'; what: 'register' | 'request' | 'receipt' | 'result' | 'ack' | 'close'; rid: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('register' as const), meta: hostile }),
  fc.record({ op: fc.constant('deregister' as const) }),
  { weight: 4, arbitrary: fc.record({ op: fc.constant('request' as const), rid: fc.nat(RIDS.length - 1), action: fc.constantFrom('apply' as const, 'export' as const), params: hostile }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('result' as const), rid: fc.nat(RIDS.length - 1), success: fc.boolean(), interim: fc.boolean(), data: hostile }) },
  fc.record({ op: fc.constant('receipt' as const), rid: fc.nat(RIDS.length - 1) }),
  fc.record({ op: fc.constant('resultAck' as const), ok: fc.boolean() }),
  { weight: 2, arbitrary: fc.record({ op: fc.constant('update' as const), value: hostile }) },
  fc.record({ op: fc.constant('pull' as const) }),
  fc.record({ op: fc.constant('direct' as const), what: fc.constantFrom('register' as const, 'request' as const, 'receipt' as const, 'result' as const, 'ack' as const, 'close' as const), rid: fc.nat(RIDS.length - 1) }),
);

/**
 * Three sources: the iframe's hook (F/c1) sees what the host sends the widget
 * (requests, observation pulls, result acks), the host's hook (H/c1) what the
 * widget sends (registrations, results, receipts, updates); H/c2 is a direct
 * client whose requests and answers are one stream. The two frames' clocks
 * are skewed, so an answer can carry an earlier time than its request.
 */
function streams(steps: Array<{ s: Step; gap: number }>, skewF: number, skewH: number): Record<string, WireEvent[]> {
  const out: Record<string, WireEvent[]> = { 'F/c1': [], 'H/c1': [], 'H/c2': [] };
  const seq: Record<string, number> = {};
  let tt = T0;
  let meta: Record<string, unknown> = {};
  const lastRequest = new Map<number, string>();
  let lastResult: string | undefined;
  const direct = { lastRequest: new Map<number, string>(), lastResult: undefined as string | undefined };
  const emit = (src: 'F/c1' | 'H/c1' | 'H/c2', client: WireClient, ev: Partial<WireEvent> & Pick<WireEvent, 'kind' | 'dir'>): string => {
    seq[src] = (seq[src] ?? 0) + 1;
    const id = `${src}/${seq[src]}`;
    const t = tt + (src === 'F/c1' ? skewF : skewH);
    out[src]!.push({ id, client: client.key, t, size: 0, ...ev });
    return id;
  };
  const result = (rid: number, success: boolean, interim: boolean, data: unknown) => ({
    requestId: RIDS[rid],
    success,
    ...(success ? { data } : { error: { code: 'EXECUTION_ERROR', message: 'no', details: data } }),
    ...(interim ? { interim: true } : {}),
    timestamp: Math.round(tt),
    surfacesHash: surfacesHash([surface(meta)]),
    surfaces: [surface(meta)],
  });
  for (const { s, gap } of steps) {
    tt += gap;
    switch (s.op) {
      case 'register':
        meta = s.meta;
        emit('H/c1', PM, { kind: 'event', dir: 'out', type: 'surface:register', payload: { surface: surface(meta), timestamp: Math.round(tt) } });
        break;
      case 'deregister':
        emit('H/c1', PM, { kind: 'event', dir: 'out', type: 'surface:deregister', payload: { surfaceId: 'coupon', timestamp: Math.round(tt) } });
        break;
      case 'request':
        lastRequest.set(
          s.rid,
          emit('F/c1', PM, { kind: 'event', dir: 'in', type: 'action:request', wantsAck: true, payload: { requestId: RIDS[s.rid], surfaceId: 'coupon', actionId: s.action, params: s.params, timestamp: Math.round(tt) } }),
        );
        break;
      case 'result':
        lastResult = emit('H/c1', PM, { kind: 'event', dir: 'out', type: 'action:result', wantsAck: true, payload: result(s.rid, s.success, s.interim, s.data) });
        break;
      case 'receipt':
        emit('H/c1', PM, { kind: 'ack', dir: 'out', ackOf: lastRequest.get(s.rid) ?? `F/c1/${s.rid + 1}`, payload: { ok: true } });
        break;
      case 'resultAck':
        if (lastResult) emit('F/c1', PM, { kind: 'ack', dir: 'in', ackOf: lastResult, payload: s.ok ? { ok: true } : { ok: false, reason: 'too large' } });
        break;
      case 'update':
        emit('H/c1', PM, { kind: 'event', dir: 'out', type: 'observation:update', payload: { surfaceId: 'coupon', observationId: 'coupon', value: s.value, timestamp: Math.round(tt) } });
        break;
      case 'pull':
        emit('F/c1', PM, { kind: 'event', dir: 'in', type: 'observation:request', wantsAck: true, payload: { surfaceId: 'coupon', observationId: 'coupon', timestamp: Math.round(tt) } });
        break;
      case 'direct':
        switch (s.what) {
          case 'register':
            emit('H/c2', DIRECT, { kind: 'event', dir: 'out', type: 'surface:register', payload: { surface: surface(meta), timestamp: Math.round(tt) } });
            break;
          case 'request':
            direct.lastRequest.set(
              s.rid,
              emit('H/c2', DIRECT, { kind: 'event', dir: 'in', type: 'action:request', wantsAck: true, payload: { requestId: RIDS[s.rid], surfaceId: 'coupon', actionId: 'apply', params: {}, timestamp: Math.round(tt) } }),
            );
            break;
          case 'receipt': {
            const of = direct.lastRequest.get(s.rid);
            if (of) emit('H/c2', DIRECT, { kind: 'ack', dir: 'out', ackOf: of, payload: { ok: true } });
            break;
          }
          case 'result':
            direct.lastResult = emit('H/c2', DIRECT, { kind: 'event', dir: 'out', type: 'action:result', wantsAck: true, payload: result(s.rid, true, false, {}) });
            break;
          case 'ack':
            if (direct.lastResult) emit('H/c2', DIRECT, { kind: 'ack', dir: 'in', ackOf: direct.lastResult, payload: { ok: true } });
            break;
          case 'close':
            emit('H/c2', DIRECT, { kind: 'lifecycle', dir: 'in', type: 'close' });
            break;
        }
        break;
    }
  }
  return out;
}

/** The model and findings as plain text: Maps as entry lists, everything else as JSON. */
function snapshot(model: SessionModel): string {
  return JSON.stringify({ clients: model.clients, findings: model.findings, errors: model.internalErrors }, (_k, v: unknown) => (v instanceof Map ? [...v.entries()] : v));
}

/** The definition: every event in canonical order, each tick after what was captured at or before it. */
function reference(all: WireEvent[], ticks: number[]): SessionModel {
  const placed = placeAll(all);
  const model = new SessionModel();
  const times = [...ticks, ...(placed.length ? [placed.at(-1)!.t] : [])].sort((a, b) => a - b);
  let k = 0;
  for (const p of placed) {
    while (k < times.length && times[k]! < p.t) model.tick(times[k++]!);
    model.apply(p.ev, clientOf(p.ev.client)!);
  }
  while (k < times.length) model.tick(times[k++]!);
  model.finish();
  return model;
}

interface Delivery {
  /** Which source gives its next event, over and over (modulo those left). */
  picks: number[];
  /** Where a batch ends. */
  cuts: boolean[];
  /** Panel wall-clock time between batches. */
  gaps: number[];
  /** Ticks: capture time offset, and the batch after which it runs. */
  ticks: Array<{ at: number; after: number }>;
}

/** Feeds the streams in the interleaving `d` describes; returns the feed, finished. */
function deliver(all: Record<string, WireEvent[]>, d: Delivery): ModelFeed {
  const queues = Object.values(all).map((q) => [...q]);
  const order: WireEvent[] = [];
  let i = 0;
  for (;;) {
    const left = queues.filter((q) => q.length);
    if (!left.length) break;
    order.push(left[(d.picks[i++] ?? i) % left.length]!.shift()!);
  }
  const batches: WireEvent[][] = [[]];
  order.forEach((ev, j) => {
    batches.at(-1)!.push(ev);
    if (d.cuts[j]) batches.push([]);
  });
  const feed = new ModelFeed(clientOf);
  let now = 0;
  batches.forEach((batch, b) => {
    now += d.gaps[b] ?? 0;
    feed.add(batch, now);
    for (const tk of d.ticks) if (tk.after % batches.length === b) feed.tickAt(T0 + tk.at);
  });
  feed.finish();
  return feed;
}

const delivery: fc.Arbitrary<Delivery> = fc.record({
  picks: fc.array(fc.nat(), { maxLength: 120 }),
  cuts: fc.array(fc.boolean(), { maxLength: 120 }),
  gaps: fc.array(fc.oneof(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 2 * REORDER_WINDOW_MS })), { maxLength: 120 }),
  ticks: fc.uniqueArray(fc.record({ at: fc.oneof(fc.integer({ min: 0, max: 3_000 }), fc.constantFrom(6_000, 35_000)), after: fc.nat() }), { maxLength: 4, selector: (x) => x.at }),
});

const scenario = fc.record({
  steps: fc.array(fc.record({ s: step, gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 40 })) }), { minLength: 1, maxLength: 40 }),
  skewF: fc.integer({ min: -25, max: 25 }),
  skewH: fc.integer({ min: -25, max: 25 }),
});

describe('arrival order never changes the model (fast-check)', () => {
  it('any interleaving of the same per-source streams, in any batches, gives the model and findings of the canonical order', () => {
    fc.assert(
      fc.property(scenario, delivery, delivery, ({ steps, skewF, skewH }, d1, d2) => {
        const all = streams(steps, skewF, skewH);
        const ticks = d1.ticks.map((tk) => T0 + tk.at);
        const expected = snapshot(reference(Object.values(all).flat(), ticks));
        const one = deliver(all, d1);
        // The same ticks, at other moments of another interleaving.
        const two = deliver(all, { ...d2, ticks: d1.ticks.map((tk, j) => ({ at: tk.at, after: d2.ticks[j]?.after ?? j })) });
        assert.equal(one.model.internalErrors, 0, one.model.lastInternalError);
        assert.equal(snapshot(one.model), expected);
        assert.equal(snapshot(two.model), expected);
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
      }),
      { numRuns: Number(process.env.MERGE_FC_RUNS ?? 300) },
    );
  });

  it('the canonical order keeps each source in its own order, whatever its clock does', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a/1', 'a/2', 'b/1'), fc.integer({ min: 0, max: 20 })), { maxLength: 40 }), fc.array(fc.nat()), (raw, picks) => {
        const seq: Record<string, number> = {};
        const events = raw.map(([src, t]) => ({ id: `${src}/${(seq[src] = (seq[src] ?? 0) + 1)}`, client: 'k', t, dir: 'in', kind: 'other', size: 0 }) as WireEvent);
        const bySource = (list: WireEvent[]) => ['a/1', 'a/2', 'b/1'].map((s) => list.filter((e) => e.id.startsWith(`${s}/`)).map((e) => e.id));
        const canonical = canonicalOrder(events);
        assert.deepEqual(bySource(canonical), bySource(events));
        // Another interleaving of the same streams: the same order.
        const queues = bySource(events).map((ids) => ids.map((id) => events.find((e) => e.id === id)!));
        const other: WireEvent[] = [];
        let i = 0;
        while (queues.some((q) => q.length)) {
          const left = queues.filter((q) => q.length);
          other.push(left[(picks[i++] ?? 0) % left.length]!.shift()!);
        }
        assert.deepEqual(canonicalOrder(other).map((e) => e.id), canonical.map((e) => e.id));
      }),
      { numRuns: 300 },
    );
  });
});

/** A request captured in the iframe, its answer in the host whose clock runs `skew` ms behind. */
function crossFrame(skew: number): { request: WireEvent; result: WireEvent; requestId: string } {
  const requestId = RIDS[0]!;
  const request: WireEvent = {
    id: 'F/c1/1',
    client: PM.key,
    t: T0 + 100,
    dir: 'in',
    kind: 'event',
    type: 'action:request',
    payload: { requestId, surfaceId: 'coupon', actionId: 'apply', params: {}, timestamp: T0 + 100 },
    size: 0,
  };
  const result: WireEvent = {
    id: 'H/c1/2',
    client: PM.key,
    t: T0 + 103 - skew,
    dir: 'out',
    kind: 'event',
    type: 'action:result',
    wantsAck: true,
    payload: { requestId, success: true, data: {}, timestamp: T0 + 103, surfacesHash: surfacesHash([surface({})]), surfaces: [surface({})] },
    size: 0,
  };
  return { request, result, requestId };
}

const register: WireEvent = { id: 'H/c1/1', client: PM.key, t: T0, dir: 'out', kind: 'event', type: 'surface:register', payload: { surface: surface({}), timestamp: T0 }, size: 0 };

function rulesOf(model: SessionModel): string[] {
  return model.findings.map((f) => f.rule);
}

describe('an answer before its request', () => {
  it('in the same batch, with the answer stamped earlier by a skewed clock: paired, no "never received"', () => {
    const { request, result, requestId } = crossFrame(10);
    const feed = new ModelFeed(clientOf);
    feed.add([register, result, request], 0);
    feed.finish();
    const req = feed.model.clients.get(PM.key)!.requests.get(requestId)!;
    assert.equal(req.status, 'succeeded');
    assert.equal(req.results.length, 1);
    assert.equal(req.durationMs, 0, 'never a negative duration');
    assert.deepEqual(rulesOf(feed.model), []);
  });

  it('in a later batch, after the window let the answer through: re-evaluated, paired', () => {
    const { request, result, requestId } = crossFrame(0);
    const feed = new ModelFeed(clientOf);
    feed.add([register, result], 0);
    feed.release(REORDER_WINDOW_MS + 1);
    assert.equal(feed.held, 0, 'the window let the answer through');
    feed.add([request], REORDER_WINDOW_MS + 50);
    assert.equal(feed.stats.rebuilds, 1);
    const req = feed.model.clients.get(PM.key)!.requests.get(requestId)!;
    assert.equal(req.status, 'succeeded');
    feed.tickAt(T0 + 60_000);
    assert.deepEqual(rulesOf(feed.model), []);
  });

  it('within the window, the later batch needs no re-evaluation', () => {
    const { request, result, requestId } = crossFrame(0);
    const feed = new ModelFeed(clientOf);
    // The iframe's hook said it is there when the panel subscribed.
    feed.noteHook('F', 0);
    feed.add([register, result], 1_000);
    assert.equal(feed.held, 2, 'all waits: the iframe has not been heard from past it');
    feed.add([request], 1_040);
    assert.equal(feed.held, 1, 'the request is certainly in order now; the answer waits for the host to move on, or the window');
    feed.release(1_040 + REORDER_WINDOW_MS);
    assert.equal(feed.held, 0);
    assert.equal(feed.stats.rebuilds, 0);
    assert.equal(feed.model.clients.get(PM.key)!.requests.get(requestId)!.status, 'succeeded');
  });

  it('fed straight to the model, in later batches: the answer is parked, then paired', () => {
    const { request, result, requestId } = crossFrame(0);
    const model = new SessionModel();
    model.apply(register, PM);
    model.apply(result, PM);
    model.tick(result.t + PARK_SETTLE_MS - 1);
    assert.deepEqual(rulesOf(model), [], 'not yet certain');
    model.apply(request, PM);
    const req = model.clients.get(PM.key)!.requests.get(requestId)!;
    assert.equal(req.status, 'succeeded');
    assert.deepEqual(
      req.results.map((r) => r.eventId),
      [result.id],
    );
    model.tick(T0 + 60_000);
    model.finish();
    assert.deepEqual(rulesOf(model), []);
  });

  it('its acknowledgment too: a receipt before its request is applied when the request is', () => {
    const { request, requestId } = crossFrame(0);
    const receipt: WireEvent = { id: 'H/c1/3', client: PM.key, t: request.t - 5, dir: 'out', kind: 'ack', ackOf: request.id, payload: { ok: true }, size: 0 };
    const model = new SessionModel();
    model.apply(register, PM);
    model.apply(receipt, PM);
    model.apply(request, PM);
    const req = model.clients.get(PM.key)!.requests.get(requestId)!;
    assert.equal(req.receipts.length, 1);
    assert.equal(req.status, 'running');
  });

  it('"never received" once absence is certain: after the settle window on the capture clock, or at the end of a recording', () => {
    const { result } = crossFrame(0);
    const model = new SessionModel();
    model.apply(register, PM);
    model.apply(result, PM);
    model.tick(result.t + PARK_SETTLE_MS - 1);
    assert.deepEqual(rulesOf(model), []);
    model.tick(result.t + PARK_SETTLE_MS);
    assert.deepEqual(rulesOf(model), ['result-unknown-request']);
    // A recording that ends sooner says it at its end.
    assert.deepEqual(rulesOf(replay([{ ev: register, client: PM }, { ev: result, client: PM }])), ['result-unknown-request']);
  });

  it('what waits for a request is bounded, and what falls off is judged and counted', () => {
    const model = new SessionModel();
    model.apply(register, PM);
    for (let i = 0; i < 1_005; i++) {
      const rid = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      model.apply({ id: `H/c1/${i + 2}`, client: PM.key, t: T0 + i, dir: 'out', kind: 'event', type: 'action:result', payload: { requestId: rid, success: true, timestamp: T0 + i, surfacesHash: surfacesHash([surface({})]) }, size: 0 }, PM);
    }
    const c = model.clients.get(PM.key)!;
    assert.equal(c.dropped.parkedResults, 5);
    assert.equal(rulesOf(model).filter((r) => r === 'result-unknown-request').length, 5);
    model.finish();
    assert.equal(rulesOf(model).filter((r) => r === 'result-unknown-request').length, 1_005);
  });
});

describe('ModelFeed', () => {
  it('a panel opened late: each frame replays its buffer in a batch of its own, and no rebuild is needed', () => {
    const { request, result, requestId } = crossFrame(0);
    const feed = new ModelFeed(clientOf);
    // The host's replay comes first and alone; the iframe's hook has not even announced itself.
    feed.add([register, result], 0);
    feed.add([request], 50);
    feed.release(50 + REORDER_WINDOW_MS);
    assert.equal(feed.held, 0);
    assert.equal(feed.stats.rebuilds, 0);
    assert.equal(feed.model.clients.get(PM.key)!.requests.get(requestId)!.status, 'succeeded');
  });

  it('a late tick (before what was applied) re-evaluates, like a late event', () => {
    const { request, result } = crossFrame(0);
    const feed = new ModelFeed(clientOf);
    feed.add([register, request, result], 0);
    feed.release(10_000);
    feed.tickAt(T0 + 50);
    assert.equal(feed.stats.rebuilds, 1);
    const expected = new SessionModel();
    expected.apply(register, PM);
    expected.tick(T0 + 50);
    expected.apply(request, PM);
    expected.apply(result, PM);
    assert.equal(snapshot(feed.model), snapshot(expected));
  });

  it('past its bound it applies a late event where it arrives and counts it (a rebuild would lose what was evicted)', () => {
    const feed = new ModelFeed(clientOf, { maxEvents: 10 });
    const updates = Array.from({ length: 2_000 }, (_, i): WireEvent => ({ id: `H/c1/${i + 2}`, client: PM.key, t: T0 + 10 + i, dir: 'out', kind: 'event', type: 'observation:update', payload: { surfaceId: 'coupon', observationId: 'coupon', value: i, timestamp: T0 + 10 + i }, size: 0 }));
    feed.add([register, ...updates], 0);
    feed.release(REORDER_WINDOW_MS);
    const { request, requestId } = crossFrame(0);
    feed.add([request], REORDER_WINDOW_MS + 1);
    assert.equal(feed.stats.rebuilds, 0);
    assert.equal(feed.stats.lateApplied, 1);
    assert.ok(feed.model.clients.get(PM.key)!.requests.has(requestId));
    // What was registered before the eviction is still known.
    assert.ok(feed.model.clients.get(PM.key)!.surfaces.has('coupon'));
  });
});
