/**
 * The state as of any event (src/session/model/as-of.ts) on a hand-built
 * session whose state after each event is written here from the spec's
 * meaning (§7.2 registration and deregistration, §7.3.4 a result's surfaces
 * are the whole set, §7.4 the latest timestamp wins, §7.6.1 transport loss
 * unmounts everything); hashes from the independent implementation
 * (test/demo/independent). Checkpoints are checked against a replay from the
 * start (every = 1 million: no checkpoint but the first).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { surfacesHash } from '../demo/independent/index.ts';
import type { OUISurface } from '../../src/protocol/index.ts';
import { AsOfIndex, diffStates, requestSight, type StateAt } from '../../src/session/model/as-of.ts';
import type { WireEvent } from '../../src/session/wire/wire.ts';

const T0 = 1_767_225_600_000;
const cart: OUISurface = {
  id: 'cart',
  name: 'Cart',
  description: 'The cart',
  actions: [{ id: 'add_item', description: 'Add', effect: 'edit', input: { type: 'object', properties: { sku: { type: 'string' } } } }],
  observations: [{ id: 'total', description: 'Total', schema: { type: 'number' } }],
};
const promo: OUISurface = {
  id: 'promo',
  name: 'Promo',
  description: 'A banner',
  actions: [{ id: 'dismiss', description: 'Dismiss', effect: 'view', input: { type: 'object', properties: {} } }],
  observations: [{ id: 'banner', description: 'Banner', schema: { type: 'string' } }],
};

let n = 0;
function ev(type: string, payload: unknown, dir: 'in' | 'out' = 'out', kind: WireEvent['kind'] = 'event', client = 'c1'): WireEvent {
  const i = n++;
  return { id: `h/${client}/${i}`, client, t: T0 + i * 10, dir, kind, type, ...(payload !== undefined ? { payload } : {}), size: 1 };
}

const REQ = '00000000-0000-4000-8000-000000000001';
const events: WireEvent[] = [
  /* 0 */ ev('open', undefined, 'in', 'lifecycle'),
  /* 1 */ ev('surface:register', { surface: cart, timestamp: T0 }),
  /* 2 */ ev('observation:update', { surfaceId: 'cart', observationId: 'total', value: 0, timestamp: T0 + 20 }),
  /* 3 */ ev('surface:register', { surface: promo, timestamp: T0 + 30 }),
  /* 4 */ ev('observation:update', { surfaceId: 'promo', observationId: 'banner', value: '10% off', timestamp: T0 + 40 }),
  /* 5 */ ev('observation:update', { surfaceId: 'cart', observationId: 'total', value: 5, timestamp: T0 + 50 }),
  // The agent still holds the set of cart alone: it never took in promo.
  /* 6 */ ev('action:request', { requestId: REQ, surfaceId: 'cart', actionId: 'add_item', params: { sku: 'x' }, timestamp: T0 + 60, knownSurfaces: surfacesHash([cart]) }, 'in'),
  // The result's set is the whole set: promo is gone with it, and its banner's value.
  /* 7 */ ev('action:result', { requestId: REQ, success: true, data: {}, timestamp: T0 + 70, surfacesHash: surfacesHash([cart]), surfaces: [cart] }),
  // Older than the latest update: the total stays 5.
  /* 8 */ ev('observation:update', { surfaceId: 'cart', observationId: 'total', value: 3, timestamp: T0 + 45 }),
  /* 9 */ ev('observation:update', { surfaceId: 'cart', observationId: 'total', value: 8, timestamp: T0 + 90 }),
  /* 10 */ ev('close', undefined, 'in', 'lifecycle'),
];

function view(s: StateAt | undefined) {
  const c = s?.clients.get('c1');
  return { surfaces: c ? [...c.surfaces.keys()] : [], values: c ? Object.fromEntries([...c.observations].map(([k, o]) => [k, o.value])) : {} };
}

for (const every of [2, 1_000_000]) {
  test(`state after each event (checkpoint every ${every})`, () => {
    const index = new AsOfIndex(every);
    assert.deepEqual(view(index.stateAt(events, 0)), { surfaces: [], values: {} });
    assert.deepEqual(view(index.stateAt(events, 1)), { surfaces: ['cart'], values: {} });
    assert.deepEqual(view(index.stateAt(events, 2)), { surfaces: ['cart'], values: { 'cart/total': 0 } });
    assert.deepEqual(view(index.stateAt(events, 4)), { surfaces: ['cart', 'promo'], values: { 'cart/total': 0, 'promo/banner': '10% off' } });
    assert.deepEqual(view(index.stateAt(events, 6)), { surfaces: ['cart', 'promo'], values: { 'cart/total': 5, 'promo/banner': '10% off' } });
    assert.deepEqual(view(index.stateAt(events, 7)), { surfaces: ['cart'], values: { 'cart/total': 5 } });
    assert.deepEqual(view(index.stateAt(events, 8)), { surfaces: ['cart'], values: { 'cart/total': 5 } });
    assert.deepEqual(view(index.stateAt(events, 9)), { surfaces: ['cart'], values: { 'cart/total': 8 } });
    assert.deepEqual(view(index.stateAt(events, 10)), { surfaces: [], values: {} });
    // Asked out of order, the answers are the same.
    assert.deepEqual(view(index.stateAt(events, 3)), { surfaces: ['cart', 'promo'], values: { 'cart/total': 0 } });
    assert.equal(index.stateAt(events, 11), undefined);
  });
}

test('the diff from an event to now: surfaces and values that changed since', () => {
  const index = new AsOfIndex(4);
  const then = index.stateAt(events, 4)!;
  const now = index.stateAt(events, 9)!;
  const d = diffStates(then, now);
  assert.equal(d.length, 1);
  assert.deepEqual(d[0]!.surfaces, ['removed surface promo']);
  assert.deepEqual(d[0]!.observations.sort((a, b) => a.key.localeCompare(b.key)), [
    { key: 'cart/total', then: 0, now: 8 },
    { key: 'promo/banner', then: '10% off' },
  ]);
  assert.deepEqual(diffStates(now, index.stateAt(events, 9)!), []);
});

test('an action:request: the set held under its knownSurfaces against the client\'s surfaces then, and the values then', () => {
  const index = new AsOfIndex(3);
  const sight = requestSight(index, events, 6)!;
  assert.equal(sight.requestId, REQ);
  assert.equal(sight.knownSurfaces, surfacesHash([cart]));
  assert.deepEqual(sight.held?.map((s) => s.id), ['cart']);
  assert.deepEqual(sight.mounted.map((s) => s.id), ['cart', 'promo']);
  assert.deepEqual(sight.gap, ['added surface promo']);
  assert.deepEqual(Object.fromEntries(sight.observations.map((o) => [`${o.surfaceId}/${o.observationId}`, o.value])), { 'cart/total': 5, 'promo/banner': '10% off' });
  // A hash first held after the request is not what the agent could hold then.
  assert.equal(index.heldAt('c1', surfacesHash([cart, promo]), 2), undefined);
  assert.deepEqual(index.heldAt('c1', surfacesHash([cart, promo]), 3)?.map((s) => s.id), ['cart', 'promo']);
  assert.equal(requestSight(index, events, 7), undefined);
});

test('a live list that grows, and one cleared, are followed', () => {
  const index = new AsOfIndex(2);
  const list = events.slice(0, 3);
  assert.deepEqual(view(index.stateAt(list, 2)), { surfaces: ['cart'], values: { 'cart/total': 0 } });
  list.push(...events.slice(3, 6));
  assert.deepEqual(view(index.stateAt(list, 5)).surfaces, ['cart', 'promo']);
  const other = [ev('surface:register', { surface: promo, timestamp: T0 })];
  assert.deepEqual(view(index.stateAt(other, 0)).surfaces, ['promo']);
});
