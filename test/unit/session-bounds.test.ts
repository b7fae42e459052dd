/**
 * The model never throws and stays bounded: arbitrary traffic in any order,
 * floods of updates, requests, lifecycle changes, findings and clients.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PROTOTYPE_KEYS, pageAnything, pageJson } from '../support/page-data.ts';
import { SessionModel } from '../../src/session/model/session-model.ts';
import type { WireClient, WireEvent } from '../../src/session/wire/wire.ts';
import { T0, Traffic, cartSurface, makeClient, withCart } from './session-helpers.ts';

const TYPES = ['surface:register', 'surface:deregister', 'action:request', 'action:result', 'observation:update', 'observation:request', 'x-approval:granted', 'x-other', 'bogus', ...PROTOTYPE_KEYS];
const KINDS = ['event', 'ack', 'lifecycle', 'other', 'malformed', 'weird'];
const LIFECYCLE = ['open', 'close', 'error', 'socket.io connect', 'socket.io disconnect', 'engine close'];
const IDS = ['r1', 'r2', '00000000-0000-4000-8000-000000000001', '', ...PROTOTYPE_KEYS];
const SURFACES = ['cart', 'catalog', 'Bad Id', 'x', ...PROTOTYPE_KEYS];

/** Payloads near the protocol's shapes (so handlers run deep), and anything at all. */
const nearPayload = fc.record(
  {
    requestId: fc.constantFrom(...IDS),
    surfaceId: fc.constantFrom(...SURFACES),
    actionId: fc.constantFrom('add_item', 'place_order', 'export_cart', 'nope', 'X', ...PROTOTYPE_KEYS),
    observationId: fc.constantFrom('total', 'items', 'stock', 'ghost', ...PROTOTYPE_KEYS),
    params: fc.oneof(fc.constant({ sku: 'a', qty: 1 }), pageJson(), pageAnything()),
    value: pageAnything(),
    timestamp: fc.oneof(fc.integer({ min: T0 - 100_000, max: T0 + 100_000 }), fc.double(), fc.constant(undefined)),
    success: fc.oneof(fc.boolean(), pageAnything()),
    interim: fc.oneof(fc.boolean(), pageAnything()),
    error: fc.oneof(fc.record({ code: fc.constantFrom('VALIDATION_ERROR', 'app:x', 'X'), message: fc.string() }), pageAnything()),
    data: pageAnything(),
    surfaces: fc.oneof(fc.constant([cartSurface()]), fc.array(pageAnything(), { maxLength: 3 }), pageAnything()),
    surface: fc.oneof(fc.constant(cartSurface()), fc.record({ id: fc.constantFrom(...SURFACES), name: fc.string(), description: fc.string(), actions: pageAnything() }), pageAnything()),
    surfacesHash: fc.oneof(fc.constant('fnv1a64:0123456789abcdef'), fc.string(), pageAnything()),
    knownSurfaces: fc.oneof(fc.constant('fnv1a64:0123456789abcdef'), pageAnything()),
    approval: fc.oneof(fc.record({ approvalId: fc.string(), argsHash: fc.oneof(fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }), fc.string()) }), pageAnything()),
    delivery: fc.oneof(fc.record({ trimmed: fc.constant(true), reason: fc.string(), omitted: fc.subarray(['surfaces', 'observations', 'data']) }), pageAnything()),
    observations: pageAnything(),
    approvalId: fc.string(),
    expiresAt: fc.oneof(fc.integer(), pageAnything()),
    ok: pageAnything(),
    reason: pageAnything(),
  },
  { requiredKeys: [] },
);

const wireEvent = fc.record({
  kind: fc.constantFrom(...KINDS),
  type: fc.oneof(fc.constantFrom(...TYPES), fc.constantFrom(...LIFECYCLE), fc.string(), fc.constant(undefined)),
  payload: fc.oneof(nearPayload, pageAnything()),
  dir: fc.constantFrom('in', 'out', 'sideways'),
  t: fc.oneof(fc.integer({ min: T0, max: T0 + 120_000 }), fc.double(), fc.constant(undefined)),
  ackOf: fc.option(fc.nat({ max: 40 })),
  client: fc.constantFrom('a', 'b'),
  wantsAck: fc.boolean(),
  injected: fc.boolean(),
  note: fc.option(fc.string()),
});

describe('apply() never throws', () => {
  it('whatever the kinds, types, payloads and order (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(wireEvent, { maxLength: 40 }), fc.array(fc.oneof(fc.integer(), fc.double()), { maxLength: 3 }), (items, ticks) => {
        const model = new SessionModel();
        items.forEach((it, i) => {
          const ev = {
            id: `e${i}`,
            client: it.client,
            t: it.t,
            dir: it.dir,
            kind: it.kind,
            type: it.type,
            payload: it.payload,
            ...(it.ackOf !== null ? { ackOf: `e${it.ackOf}` } : {}),
            wantsAck: it.wantsAck,
            injected: it.injected,
            ...(it.note !== null ? { note: it.note } : {}),
            size: 0,
          } as unknown as WireEvent;
          model.apply(ev, makeClient(it.client));
        });
        for (const t of ticks) model.tick(t);
        assert.equal(model.internalErrors, 0, model.lastInternalError);
        // Page-chosen type names are count keys: each count stays an own number, whatever the name.
        for (const c of model.clients.values()) {
          for (const k of Object.keys(c.counts)) assert.equal(typeof c.counts[k], 'number', `count of ${k}`);
        }
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
      }),
      { numRuns: Number(process.env.SESSION_FC_RUNS ?? 400) },
    );
  });

  it('even given things that are not wire events at all', () => {
    const model = new SessionModel();
    const junk: unknown[] = [null, undefined, 3, 'x', [], { kind: 'event' }, { kind: 'event', type: 'action:result' }, { id: {}, kind: 'ack', ackOf: {} }];
    for (const ev of junk) {
      model.apply(ev as WireEvent, null as unknown as WireClient);
      model.apply(ev as WireEvent, { key: 'k' } as WireClient);
    }
    model.tick(NaN);
    model.tick(Infinity);
    assert.equal(model.internalErrors, 0, model.lastInternalError);
  });

  it('even with hostile payloads: getters that throw, deep nesting, cycles', () => {
    const model = new SessionModel();
    const tr = withCart();
    for (const { ev, client } of tr.events) model.apply(ev, client);
    const hostile = {
      get requestId(): string {
        throw new Error('boom');
      },
    };
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = { d: deep };
    const cyclic: Record<string, unknown> = { surfaceId: 'cart', observationId: 'total', timestamp: T0 };
    cyclic.value = cyclic;
    const { ev: req } = tr.request('cart', 'view_cart');
    model.apply(req, tr.client);
    for (const payload of [hostile, { surfaceId: 'cart', observationId: 'items', value: deep, timestamp: T0 }, cyclic]) {
      model.apply(tr.event('observation:update', payload, 'out'), tr.client);
      model.apply(tr.event('action:result', payload, 'out'), tr.client);
      model.apply(tr.event('x-approval:granted', payload, 'out'), tr.client);
      model.apply(tr.receipt(req, payload), tr.client);
    }
    assert.equal(model.internalErrors, 0, model.lastInternalError);
  });
});

describe('memory bounds', () => {
  it('100k updates: history capped, drops counted, rate saturates', () => {
    const model = new SessionModel({ maxHistory: 100 });
    const tr = withCart();
    for (const { ev, client } of tr.events) model.apply(ev, client);
    const client = tr.client;
    for (let i = 0; i < 100_000; i++) {
      const ev: WireEvent = {
        id: `u${i}`,
        client: client.key,
        t: T0 + i,
        dir: 'out',
        kind: 'event',
        type: 'observation:update',
        payload: { surfaceId: 'cart', observationId: 'items', value: [{ sku: 'a', qty: i }], timestamp: T0 + i },
        size: 0,
      };
      model.apply(ev, client);
    }
    const st = model.clients.get('c1')!.observations.get('cart/items')!;
    assert.equal(st.updates, 100_000);
    assert.equal(st.history.length, 100);
    assert.equal(st.droppedHistory, 100_000 - 100);
    assert.equal(st.history.at(-1)!.eventId, 'u99999');
    assert.deepEqual(st.history.at(-1)!.summary, ['changed /0/qty from 99998 to 99999']);
    assert.equal(st.rate, 1000);
    assert.ok(model.findings.filter((f) => f.rule === 'observation-rate').length <= 3);
    assert.equal(model.internalErrors, 0);
  });

  it('requests per client are capped; a result for a forgotten request is not "unknown"', () => {
    const model = new SessionModel({ maxRequests: 50 });
    const tr = withCart();
    const ids: string[] = [];
    for (let i = 0; i < 500; i++) ids.push(tr.request('cart', 'view_cart').requestId);
    tr.result(ids[0]!, { success: true });
    for (const { ev, client } of tr.events) model.apply(ev, client);
    const c = model.clients.get('c1')!;
    assert.equal(c.requests.size, 50);
    assert.equal(c.dropped.requests, 450);
    assert.ok(!c.requests.has(ids[0]!));
    assert.equal(model.findings.filter((f) => f.rule === 'result-unknown-request').length, 0);
    model.tick(T0 + 60_000);
    assert.equal([...c.requests.values()].filter((r) => r.status === 'timed-out').length, 50);
  });

  it('per-request lists, lifecycle, surface sets and acks are capped with drops counted', () => {
    const tr = withCart();
    const { ev, requestId } = tr.request('cart', 'view_cart');
    for (let i = 0; i < 1_100; i++) {
      const rep = tr.request('cart', 'view_cart', {}, { requestId });
      tr.receipt(rep.ev);
    }
    tr.receipt(ev);
    for (let i = 0; i < 1_100; i++) {
      tr.deregister('cart');
      tr.register(cartSurface());
    }
    const c = tr.model().clients.get('c1')!;
    const r = c.requests.get(requestId)!;
    assert.equal(r.sends.length, 100);
    assert.equal(r.receipts.length, 100);
    assert.ok(c.dropped.requestEntries! > 0);
    assert.equal(c.lifecycle.length, 2000);
    assert.equal(c.dropped.lifecycle, 2201 - 2000);
    assert.equal(c.surfaceSets.length, 500);
    assert.equal(c.dropped.surfaceSets, 2201 - 500);
    assert.equal(c.acks.length, 2000);
    assert.equal(c.dropped.acks, 2201 - 2000);
  });

  it('findings are capped, oldest first, sparing critical ones', () => {
    const model = new SessionModel({ maxFindings: 10 });
    const tr = withCart();
    const { requestId } = tr.request('cart', 'place_order', { note: 'x' });
    tr.result(requestId, { success: true });
    for (let i = 0; i < 100; i++) tr.deregister(`ghost-${i}`);
    for (const { ev, client } of tr.events) model.apply(ev, client);
    assert.equal(model.findings.length, 10);
    assert.equal(model.findingsDropped, 92);
    assert.ok(model.findings.some((f) => f.severity === 'critical'));
    assert.equal(model.findings.at(-1)!.message.includes('ghost-99'), true);
  });

  it('observations, count keys and clients are capped', () => {
    const model = new SessionModel();
    const tr = new Traffic();
    for (let i = 0; i < 2_500; i++) tr.update('cart', `obs_${i}`, i);
    for (let i = 0; i < 300; i++) tr.event(`x-type-${i}`, {}, 'out');
    for (const { ev, client } of tr.events) model.apply(ev, client);
    const c = model.clients.get('c1')!;
    assert.equal(c.observations.size, 2000);
    assert.equal(c.dropped.observations, 500);
    assert.ok(Object.keys(c.counts).length <= 101);
    assert.ok(c.counts['other types']! > 0);

    for (let i = 0; i < 600; i++) {
      const other = new Traffic(makeClient(`client-${i}`));
      const ev = other.deregister('cart');
      model.apply(ev, other.client);
    }
    assert.equal(model.clients.size, 500);
    assert.equal(model.clientsDropped, 101);
  });
});
