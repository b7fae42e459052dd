/**
 * Observation diffs and surface-set changes: RFC 6902 patches that
 * reconstruct the full value (RFC 0114's discipline), and readable lines.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describeChange, diffValues, formatValue, summarizePatch } from '../../src/session/diff/observation-diff.ts';
import { diffSurfaceSets, surfaceSetObject } from '../../src/session/diff/surface-diff.ts';
import { T0, cartSurface, catalogSurface, withCart } from './session-helpers.ts';
import { applyPatchOracle } from '../support/json-patch-oracle.ts';
import { hasPrototypeKey, pageJson } from '../support/page-data.ts';

const apply = applyPatchOracle;

/** Through JSON on both sides: JSON has no -0, and JSON.parse keeps `__proto__` an own key. */
const viaJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

describe('observation diffs', () => {
  it('says what changed, was added and removed', () => {
    const prev = { items: [{ sku: 'a', qty: 1 }, { sku: 'b', qty: 1 }, { sku: 'c', qty: 5 }], coupon: 'X10' };
    const next = { items: [{ sku: 'a', qty: 2 }, { sku: 'b', qty: 1 }, { sku: 'c', qty: 5 }, { sku: 'd', qty: 1 }] };
    const { patch, summary } = describeChange(prev, next);
    assert.deepEqual(summary.sort(), ['added /items/3 = {"sku":"d","qty":1}', 'changed /items/0/qty from 1 to 2', 'removed /coupon (was "X10")'].sort());
    assert.deepEqual(apply(prev, patch), next);
    assert.ok(patch.every((op) => op.op !== 'test'), 'a patch never uses test');
  });

  it('replaces the root for scalars and changed shapes', () => {
    assert.deepEqual(diffValues(1, 2), [{ op: 'replace', path: '', value: 2 }]);
    assert.deepEqual(diffValues([1], { a: 1 }), [{ op: 'replace', path: '', value: { a: 1 } }]);
    assert.deepEqual(diffValues(null, { a: 1 }), [{ op: 'replace', path: '', value: { a: 1 } }]);
    assert.deepEqual(diffValues('x', 'x'), []);
    assert.deepEqual(describeChange(1, 2).summary, ['changed / from 1 to 2']);
    assert.deepEqual(describeChange({ a: 1 }, { a: 1 }).summary, ['no change']);
  });

  it('shortens long values and escapes pointers', () => {
    assert.equal(formatValue('x'.repeat(100)).length, 40);
    const { summary } = describeChange({ 'a/b': 1 }, { 'a/b': 2 });
    assert.deepEqual(summary, ['changed /a~1b from 1 to 2']);
  });

  it('caps the summary lines', () => {
    const prev = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    const next = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i + 1]));
    const lines = summarizePatch(prev, diffValues(prev, next));
    assert.equal(lines.length, 21);
    assert.equal(lines.at(-1), '… and 30 more changes');
  });

  it('reconstructs the full value from the previous one, for any JSON', () => {
    let metPrototypeKeys = 0;
    fc.assert(
      fc.property(pageJson(), pageJson(), (a, b) => {
        if (hasPrototypeKey(a) || hasPrototypeKey(b)) metPrototypeKeys++;
        const patch = diffValues(a, b);
        assert.deepEqual(viaJson(apply(a, patch)), viaJson(b));
      }),
      {
        numRuns: 1000,
        // The draw that once turned CI red, and its neighbours, on every run.
        examples: [
          [{}, JSON.parse('{"__proto__":0}')],
          [JSON.parse('{"__proto__":{"a":1}}'), JSON.parse('{"__proto__":{"a":2},"constructor":{"prototype":1}}')],
          [JSON.parse('{"constructor":1,"prototype":[1]}'), {}],
          [[JSON.parse('{"__proto__":null}')], [JSON.parse('{"__proto__":[]}'), 1]],
        ],
      },
    );
    assert.ok(metPrototypeKeys > 100, `prototype-reaching keys were drawn ${metPrototypeKeys} times`);
  });

  it('names prototype-reaching keys as members in patches and lines', () => {
    const prev = JSON.parse('{"__proto__":{"x":1},"prototype":[1]}');
    const next = JSON.parse('{"__proto__":{"x":2},"constructor":3}');
    const { patch, summary } = describeChange(prev, next);
    assert.deepEqual([...summary].sort(), ['added /constructor = 3', 'changed /__proto__/x from 1 to 2', 'removed /prototype (was [1])']);
    assert.deepEqual(viaJson(apply(prev, patch)), viaJson(next));
    assert.deepEqual(describeChange({}, JSON.parse('{"__proto__":null}')).summary, ['added /__proto__ = null']);
  });

  it('keeps a surface whose id is __proto__ as a member of the set', () => {
    const set = surfaceSetObject([{ id: '__proto__', actions: [] }, { id: 'constructor', actions: [] }]);
    assert.deepEqual(Object.keys(set), ['__proto__', 'constructor']);
    assert.equal(Object.getPrototypeOf(set), Object.prototype);
  });

  it('an observation value with a __proto__ member keeps it in its current value and history', () => {
    const tr = withCart();
    tr.update('cart', 'items', JSON.parse('[{"__proto__":{"sku":"a"}}]'), T0 + 10);
    tr.update('cart', 'items', JSON.parse('[{"__proto__":{"sku":"b"},"constructor":1}]'), T0 + 20);
    const st = tr.model().clients.get('c1')!.observations.get('cart/items')!;
    assert.deepEqual(st.history.map((h) => h.summary), [
      ['initial value [{"__proto__":{"sku":"a"}}]'],
      ['changed /0/__proto__/sku from "a" to "b"', 'added /0/constructor = 1'],
    ]);
    assert.equal(JSON.stringify(st.current), '[{"__proto__":{"sku":"b"},"constructor":1}]');
    assert.deepEqual(viaJson(apply(JSON.parse('[{"__proto__":{"sku":"a"}}]'), st.history[1]!.patch)), viaJson(st.current));
  });

  it('the test oracle itself: sets and reads prototype-reaching keys as own members', () => {
    const doc = apply({}, [
      { op: 'add', path: '/__proto__', value: { polluted: 1 } },
      { op: 'add', path: '/constructor', value: 2 },
    ]) as Record<string, unknown>;
    assert.deepEqual(Object.keys(doc), ['__proto__', 'constructor']);
    assert.equal(Object.getPrototypeOf(doc), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(viaJson(apply(doc, [{ op: 'replace', path: '/__proto__/polluted', value: 3 }])), JSON.parse('{"__proto__":{"polluted":3},"constructor":2}'));
    assert.throws(() => apply({}, [{ op: 'remove', path: '/constructor' }]), /no member/);
  });

  it('keeps history as patches with summaries, validity, and out-of-order updates', () => {
    const tr = withCart();
    tr.update('cart', 'items', [], T0 + 10);
    tr.update('cart', 'items', [{ sku: 'a' }], T0 + 20);
    tr.update('cart', 'items', [{ sku: 'a' }, { sku: 'b' }], T0 + 30);
    tr.update('cart', 'items', [{ sku: 'old' }], T0 + 15);
    tr.update('cart', 'items', ['not an object'], T0 + 40);
    const st = tr.model().clients.get('c1')!.observations.get('cart/items')!;
    assert.deepEqual(st.history.map((h) => h.summary), [
      ['initial value []'],
      ['added /0 = {"sku":"a"}'],
      ['added /1 = {"sku":"b"}'],
      [`out of order: timestamp ${T0 + 15} is older than ${T0 + 30}; the latest value stays`],
      ['changed /0 from {"sku":"a"} to "not an object"', 'removed /1 (was {"sku":"b"})'],
    ]);
    assert.deepEqual(st.history[0]!.patch, [{ op: 'replace', path: '', value: [] }]);
    assert.deepEqual(st.history.map((h) => h.outOfOrder === true), [false, false, false, true, false]);
    assert.deepEqual(st.history.map((h) => h.valid), [true, true, true, true, false]);
    assert.equal(st.history[4]!.errors[0]!.pointer, '/0');
    assert.deepEqual(st.current, ['not an object']);
    assert.equal(st.currentTimestamp, T0 + 40);
    assert.equal(st.updates, 5);
    assert.equal(st.updateFrequency, 'on-change');
  });

  it("applies a result's observations snapshot as changes, skipping unchanged values", () => {
    const tr = withCart();
    tr.update('cart', 'total', 1);
    const { requestId } = tr.request('cart', 'view_cart');
    tr.result(requestId, { success: true, observations: { cart: { total: 1, items: [{ sku: 'z' }] } } });
    const c = tr.model().clients.get('c1')!;
    assert.equal(c.observations.get('cart/total')!.history.length, 1);
    assert.deepEqual(c.observations.get('cart/items')!.current, [{ sku: 'z' }]);
  });
});

describe('surface-set changes', () => {
  it('summarises added and removed surfaces, actions and observations, and changed fields', () => {
    const before = [cartSurface(), catalogSurface()];
    const cart = cartSurface();
    const changedCart = {
      ...cart,
      description: 'The basket',
      actions: [
        ...cart.actions.filter((a) => a.id !== 'clear_cart' && a.id !== 'add_item'),
        { ...cart.actions[0]!, input: { type: 'object', properties: { sku: { type: 'string' } } } },
        { ...cart.actions[0]!, id: 'remove_item', description: 'Remove' },
      ],
      observations: cart.observations!.filter((o) => o.id !== 'stock').map((o) => (o.id === 'total' ? { ...o, description: 'Sum' } : o)),
    };
    const checkout = { id: 'checkout', name: 'Checkout', description: 'Pay', actions: [{ id: 'pay', description: 'Pay', input: { type: 'object' } }] };
    const after = [changedCart, checkout];
    const { patch, summary } = diffSurfaceSets(before, after);
    assert.deepEqual(summary, [
      'removed surface catalog',
      'changed description of surface cart',
      'removed action clear_cart from surface cart',
      'changed input of add_item on surface cart',
      'added action remove_item to surface cart',
      'reordered actions of surface cart',
      'removed observation stock from surface cart',
      'changed description of observation total on surface cart',
      'added surface checkout',
    ]);
    // The patch is over the sets keyed by id, and reconstructs the new set.
    assert.deepEqual(apply(surfaceSetObject(before), patch), JSON.parse(JSON.stringify(surfaceSetObject(after))));
    assert.ok(patch.some((op) => op.path === '/checkout' && op.op === 'add'));
    assert.ok(patch.some((op) => op.path === '/catalog' && op.op === 'remove'));
  });

  it('a surface moving in the array is no change', () => {
    const { patch, summary } = diffSurfaceSets([cartSurface(), catalogSurface()], [catalogSurface(), cartSurface()]);
    assert.deepEqual(patch, []);
    assert.deepEqual(summary, []);
  });

  it('reads surfaces defensively', () => {
    assert.deepEqual(diffSurfaceSets([null, 3, { id: 7 }], [{ id: 'x', actions: 'nope' }]).summary, ['added surface x']);
    assert.deepEqual(diffSurfaceSets([{ id: 'x', actions: [1, null, { id: 'go' }] }], [{ id: 'x', actions: [] }]).summary, ['removed action go from surface x']);
  });
});
