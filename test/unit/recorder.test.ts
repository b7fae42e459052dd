/**
 * Recorder: hook messages in, wire events out, in one bounded list in the
 * canonical order (wire/order.ts: capture time, each source's clock its
 * running maximum, ties by source then place), with navigations of the top
 * frame noticed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Recorder } from '../../src/session/wire/recorder.ts';
import { canonicalOrder, insertAt } from '../../src/session/wire/order.ts';
import type { WireEvent } from '../../src/session/wire/wire.ts';
import { FakeHook, T0 } from '../support/capture-items.ts';

const ev = (id: string, t: number): WireEvent => ({ id, client: 'k', t, dir: 'in', kind: 'other', size: 0 });
const ids = (r: Recorder): string[] => r.events.map((e) => e.id);

describe('Recorder', () => {
  it('decodes hook messages into events and registers their clients', () => {
    const r = new Recorder();
    const hook = new FakeHook('h');
    const ws = hook.client('websocket', 'ws://app.test/agent');
    const items = [hook.json(ws, 'out', { type: 'surface:register', payload: {} }), hook.json(ws, 'in', { type: 'action:request', payload: {} })];
    const fresh = r.accept(0, hook.message(items));
    assert.deepEqual(
      fresh.map((e) => e.type),
      ['surface:register', 'action:request'],
    );
    assert.equal(r.clients.size, 1);
    assert.equal(r.byId.get('h/c1/2')?.type, 'action:request');
    // A replay of the same items adds nothing.
    assert.deepEqual(r.accept(0, hook.message(items)), []);
    assert.equal(r.events.length, 2);
  });

  it('keeps events in the canonical order when batches arrive out of order', () => {
    const r = new Recorder();
    const top = new FakeHook('top', { t: T0 });
    const sub = new FakeHook('sub', { t: T0 });
    const a = top.client('websocket', 'ws://app.test/a');
    const b = sub.client('websocket', 'ws://app.test/b');
    const at = (item: ReturnType<FakeHook['frame']>, t: number) => ({ ...item, t });
    // The top frame's batch (t = 10, 20, 30) arrives first; the iframe's (15, 20, 25, 30, then 5: its clock stepped back) after it.
    r.accept(0, top.message([10, 20, 30].map((d) => at(top.frame(a, 'in', '{}'), T0 + d))));
    r.accept(2, sub.message([15, 20, 25, 30, 5].map((d) => at(sub.frame(b, 'in', '{}'), T0 + d))));
    assert.deepEqual(ids(r), [
      'top/c1/1', // 10
      'sub/c1/1', // 15
      'sub/c1/2', // 20: a tie, broken by source ('sub/c1' < 'top/c1'), whichever arrived first
      'top/c1/2', // 20
      'sub/c1/3', // 25
      'sub/c1/4', // 30
      'sub/c1/5', // stamped 5, but never before its own source's earlier events: placed at 30, after sub/c1/4
      'top/c1/3', // 30
    ]);
  });

  it('stays within its bound, counting what it evicts and forgetting it by id', () => {
    const r = new Recorder(5);
    r.add([1, 2, 3, 4, 5, 6, 7, 8].map((t) => ev(`a/c/${t}`, t)));
    assert.deepEqual(ids(r), ['a/c/4', 'a/c/5', 'a/c/6', 'a/c/7', 'a/c/8']);
    assert.equal(r.evicted, 3);
    assert.equal(r.byId.size, 5);
    for (const gone of ['a/c/1', 'a/c/2', 'a/c/3']) assert.equal(r.byId.has(gone), false);
    // Another source's event older than everything kept is the one evicted.
    r.add([ev('b/c/1', 0)]);
    assert.deepEqual(ids(r), ['a/c/4', 'a/c/5', 'a/c/6', 'a/c/7', 'a/c/8']);
    assert.equal(r.byId.has('b/c/1'), false);
    assert.equal(r.evicted, 4);
    // A newer one pushes out the oldest.
    r.add([ev('a/c/9', 9)]);
    assert.deepEqual(ids(r), ['a/c/5', 'a/c/6', 'a/c/7', 'a/c/8', 'a/c/9']);
    assert.equal(r.byId.has('a/c/4'), false);
    assert.equal(r.evicted, 5);
    // The same source stamped earlier still comes after its own earlier events: it is kept, the oldest goes.
    r.add([ev('a/c/10', 0)]);
    assert.deepEqual(ids(r), ['a/c/6', 'a/c/7', 'a/c/8', 'a/c/9', 'a/c/10']);
    assert.equal(r.evicted, 6);
  });

  it('keeps the newest of the canonical order of everything it took, under any arrival order (fast-check)', () => {
    const arrival = fc.array(fc.array(fc.record({ src: fc.constantFrom('top/c1', 'top/c2', 'sub/c1', 'odd'), t: fc.integer({ min: 0, max: 50 }) }), { maxLength: 10 }), { maxLength: 10 });
    fc.assert(
      fc.property(arrival, fc.integer({ min: 1, max: 30 }), (batches, max) => {
        const r = new Recorder(max);
        const all: WireEvent[] = [];
        let n = 0;
        for (const batch of batches) {
          // 'odd': ids of another shape (an imported file's), one stream for their client.
          const fresh = batch.map(({ src, t }) => (src === 'odd' ? { ...ev(`odd-${n++}`, t), client: 'odd' } : ev(`${src}/${++n}`, t)));
          all.push(...fresh);
          r.add(fresh);
        }
        assert.equal(r.events.length, Math.min(all.length, max));
        assert.equal(r.evicted, Math.max(0, all.length - max));
        assert.equal(r.byId.size, r.events.length);
        for (const e of r.events) assert.equal(r.byId.get(e.id), e);
        const order = canonicalOrder(all);
        assert.deepEqual(ids(r), order.slice(order.length - r.events.length).map((e) => e.id));
      }),
      { numRuns: 300 },
    );
  });

  it('inserts as splice does, near the end (by hand) or far from it (fast-check)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 700 }), fc.nat(), (n, k) => {
        const list = Array.from({ length: n }, (_, i) => i);
        const at = k % (n + 1);
        const expected = [...list];
        expected.splice(at, 0, -1);
        insertAt(list, at, -1);
        assert.deepEqual(list, expected);
      }),
      { numRuns: 200 },
    );
  });

  it('calls back on navigation: a new hook id in the top frame after another', () => {
    let navigations = 0;
    const r = new Recorder(100, () => navigations++);
    const first = new FakeHook('page-1');
    const c1 = first.client('websocket', 'ws://app.test/');
    r.accept(0, first.message([first.frame(c1, 'in', '{}')]));
    assert.equal(navigations, 0, 'the first page is not a navigation');
    r.accept(0, first.message([first.frame(c1, 'in', '{}')]));
    r.accept(0, { type: 'state', hook: 'page-1', drops: {}, clients: [] });
    assert.equal(navigations, 0, 'more from the same hook is not a navigation');
    // An iframe's hook (another frame id) is not a navigation of the page.
    const iframe = new FakeHook('iframe-1');
    r.accept(3, iframe.message([iframe.frame(iframe.client('direct', 'rt'), 'out', '{}')]));
    assert.equal(navigations, 0);
    // The page reloads: a new hook instance in frame 0.
    const second = new FakeHook('page-2');
    r.accept(0, second.message([second.frame(second.client('websocket', 'ws://app.test/'), 'in', '{}')]));
    assert.equal(navigations, 1);
    r.accept(0, second.message([]));
    assert.equal(navigations, 1);
    r.accept(0, { type: 'state', hook: 'page-3', drops: {}, clients: [] });
    assert.equal(navigations, 2, 'a state message from a new top hook counts too');
    // Messages without a hook id never count.
    r.accept(0, { type: 'items', items: [] });
    r.accept(0, null);
    assert.equal(navigations, 2);
  });

  it('clear() empties the list but keeps the intake cursors (nothing is replayed twice)', () => {
    const r = new Recorder(3);
    const hook = new FakeHook('h');
    const ws = hook.client('websocket', 'ws://app.test/');
    const items = Array.from({ length: 5 }, () => hook.frame(ws, 'in', '{}'));
    r.accept(0, hook.message(items));
    assert.equal(r.evicted, 2);
    r.clear();
    assert.deepEqual([r.events.length, r.byId.size, r.evicted], [0, 0, 0]);
    assert.deepEqual(r.accept(0, hook.message(items)), []);
    assert.deepEqual(r.intake.cursors(), { 'h/c1': 5 });
    // Its order starts afresh too, as the fresh model feed the panel starts with it: no source's old clock holds an event back.
    r.add([ev('x/c/1', 100)]);
    r.clear();
    r.add([ev('x/c/2', 50), ev('y/c/1', 60)]);
    assert.deepEqual(ids(r), ['x/c/2', 'y/c/1']);
  });
});
